import type { Project } from "../core/db/schema.js";

export const STATUS_LABEL: Record<Project["status"], string> = {
  planned: "Planned",
  active: "Under way",
  completed: "Completed",
};
