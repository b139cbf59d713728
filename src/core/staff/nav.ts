import type { Viewer } from "../context.js";
import { hasRole, type StaffRole } from "./guard.js";

/** One entry of the staff navigation. Features add theirs with registerStaffPage when their module loads. */
export interface StaffNavEntry {
  label: string;
  path: string;
  /** The least role that sees the entry (and may open the page). */
  minimum: StaffRole;
  /** Lower first; ties keep registration order. */
  order?: number;
}

const entries: StaffNavEntry[] = [];

/** Adds a page to the staff navigation (idempotent by path). */
export function registerStaffPage(entry: StaffNavEntry): void {
  const i = entries.findIndex((e) => e.path === entry.path);
  if (i >= 0) entries[i] = entry;
  else entries.push(entry);
}

/** The entries the viewer may open, in order. */
export function staffNav(viewer: Pick<Viewer, "role"> | null): StaffNavEntry[] {
  return entries
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => hasRole(viewer, e.minimum))
    .sort((a, b) => (a.e.order ?? 100) - (b.e.order ?? 100) || a.i - b.i)
    .map(({ e }) => e);
}
