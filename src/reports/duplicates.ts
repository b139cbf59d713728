import type { Kysely } from "kysely";
import type { DB, ReportVisibility } from "../core/db/schema.js";
import { publicReport } from "../core/visibility.js";

export interface LinkedReport {
  reference: string;
  title: string;
  visibility: ReportVisibility;
}

export interface DuplicateLinks {
  /** The report this one duplicates. */
  original: LinkedReport | null;
  /** The reports that duplicate this one (at most 50, oldest first). */
  duplicates: LinkedReport[];
}

/** The duplicate links of a report both ways; the public see only public reports, staff see all, marked. */
export async function duplicateLinks(
  db: Kysely<DB>,
  reference: string,
  options: { staff: boolean },
): Promise<DuplicateLinks> {
  const self = await db
    .selectFrom("reports")
    .select(["id", "duplicate_of"])
    .where("reference", "=", reference)
    .executeTakeFirst();
  if (!self) return { original: null, duplicates: [] };
  const linked = () => {
    const q = db.selectFrom("reports").select(["reference", "title", "visibility"]);
    return options.staff ? q : q.where(publicReport);
  };
  const [original, duplicates] = await Promise.all([
    self.duplicate_of === null ? undefined : linked().where("id", "=", self.duplicate_of).executeTakeFirst(),
    linked().where("duplicate_of", "=", self.id).orderBy("created_at").orderBy("id").limit(50).execute(),
  ]);
  return { original: original ?? null, duplicates };
}
