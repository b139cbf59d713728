import type { Viewer } from "../viewer.js";
import { hasRole, type StaffRole } from "./guard.js";

/** One entry of the staff navigation. Features list theirs in their manifest (`staff.pages`). */
export interface StaffNavEntry {
  label: string;
  path: string;
  /** The least role that sees the entry (and may open the page). */
  minimum: StaffRole;
  /** Lower first; ties keep the order of the feature list. */
  order?: number;
}

/** The entries (every feature's, in feature-list order) that the viewer may open, sorted by `order`. */
export function staffNav(entries: readonly StaffNavEntry[], viewer: Pick<Viewer, "role"> | null): StaffNavEntry[] {
  return entries
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => hasRole(viewer, e.minimum))
    .sort((a, b) => (a.e.order ?? 100) - (b.e.order ?? 100) || a.i - b.i)
    .map(({ e }) => e);
}
