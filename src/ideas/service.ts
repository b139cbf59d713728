import type { Kysely } from "kysely";
import { issueLink, useLink } from "../core/links.js";
import { RETENTION } from "../core/jobs/retention.js";
import { recordAudit } from "../core/staff/audit.js";
import type { RecordSubmission } from "../core/http/single-use.js";
import type { Civic } from "../core/context.js";
import type { DB, IdeaStatus } from "../core/db/schema.js";
import type { FieldProblem } from "../core/http/errors.js";
import { ImageError, type PhotoInput, photoKey, photoSource, processPhoto } from "../core/media/images.js";
import { sendUnconfirmedMail } from "../core/mail/policy.js";
import { layoutMail } from "../core/mail/layout.js";
import { mediaStorage } from "../core/media/storage.js";
import { isBanned } from "../moderation/index.js";
import { publicIn } from "../core/visibility.js";

export const IDEA_CATEGORIES = [
  { value: "green-spaces", label: "Green spaces and nature" },
  { value: "roads-paths", label: "Roads, paths and travel" },
  { value: "events", label: "Events and activities" },
  { value: "facilities", label: "Community facilities" },
  { value: "other", label: "Something else" },
];

/** The statuses people see; "unconfirmed" ideas are not public yet. */
export const IDEA_STATUS_LABELS: Record<Exclude<IdeaStatus, "unconfirmed">, string> = {
  open: "Open for support",
  "under-consideration": "Under consideration",
  adopted: "Adopted",
  "not-taken-forward": "Not taken forward",
  done: "Done",
};

export const STAFF_STATUSES = ["under-consideration", "adopted", "not-taken-forward", "done"] as const;
export type StaffStatus = (typeof STAFF_STATUSES)[number];

export function isPublicStatus(v: string): v is Exclude<IdeaStatus, "unconfirmed"> {
  return v in IDEA_STATUS_LABELS;
}

export interface IdeaInput {
  title: string;
  description: string;
  category: string;
  place: string;
  locationText: string;
  email: string;
}

/** Checks an idea form; returns the problems by field id. */
export async function checkIdea(db: Kysely<DB>, v: IdeaInput, needsEmail: boolean): Promise<FieldProblem[]> {
  const p: FieldProblem[] = [];
  if (v.title.trim().length < 5) p.push({ field: "title", message: "Give your idea a title of at least 5 characters" });
  else if (v.title.length > 120) p.push({ field: "title", message: "Keep the title to 120 characters" });
  if (v.description.trim().length < 10)
    p.push({ field: "description", message: "Describe your idea in a sentence or two" });
  else if (v.description.length > 5000)
    p.push({ field: "description", message: "Keep the description to 5,000 characters" });
  if (v.category && !IDEA_CATEGORIES.some((c) => c.value === v.category)) {
    p.push({ field: "category", message: "Choose a category from the list" });
  }
  if (v.place && !(await db.selectFrom("places").select("id").where("id", "=", v.place).executeTakeFirst())) {
    p.push({ field: "place", message: "Choose a place from the list" });
  }
  if (v.locationText.length > 200)
    p.push({ field: "location_text", message: "Keep the place description to 200 characters" });
  if (needsEmail && v.email === "") {
    p.push({ field: "email", message: "Enter your email address, like name@example.com, so you can confirm the idea" });
  }
  return p;
}

/**
 * Saves an idea. A signed-in resident's idea is published at once; otherwise it waits for the email address to be
 * confirmed with the link mailed now. The photo loses its metadata in the photo pipeline.
 */
export async function proposeIdea(
  civic: Civic,
  v: IdeaInput,
  accountId: string | null,
  photo: PhotoInput | undefined,
  record: RecordSubmission = async () => {},
): Promise<{ id: number; published: boolean }> {
  let photoHash: string | null = null;
  if (photo) {
    const processed = await processPhoto(photoSource(photo));
    const storage = mediaStorage(civic.config);
    await storage.put(photoKey(processed.hash, "full"), processed.full);
    await storage.put(photoKey(processed.hash, "thumb"), processed.thumb);
    photoHash = processed.hash;
  }
  const now = civic.now();
  const at = now.toISOString();
  // From a banned account or address: kept, never published, with the usual answer (moderation/ban-list.ts).
  const banned = await isBanned(civic.database.db, { accountId, addresses: [v.email] });
  return civic.database.db.transaction().execute(async (tx) => {
    const row = await tx
      .insertInto("ideas")
      .values({
        title: v.title.trim(),
        description: v.description.trim(),
        category: v.category || null,
        place_id: v.place || null,
        location_text: v.locationText.trim() || null,
        photo_hash: photoHash,
        status: accountId ? "open" : "unconfirmed",
        response: null,
        project_id: null,
        account_id: accountId,
        email: accountId ? null : v.email,
        created_at: at,
        published_at: accountId ? at : null,
        updated_at: at,
        ...(banned ? { visibility: "hidden" as const } : {}),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const published = accountId !== null && !banned;
    await record(tx, published ? `/ideas/${row.id}` : "/ideas/sent");
    if (!accountId) {
      // A single-use link (core/links.ts), valid while an unconfirmed idea is kept.
      const token = await issueLink(
        tx,
        {
          purpose: CONFIRM,
          email: v.email,
          ref: row.id,
          expiresAt: new Date(now.getTime() + RETENTION.unconfirmedDays * 24 * 60 * 60_000),
          maxUses: 1,
        },
        now,
      );
      await sendUnconfirmedMail(
        tx,
        { secret: civic.config.sessionSecret, now },
        layoutMail(
          civic.site,
          { kind: "idea-confirm", to: v.email, subject: `Confirm your idea for ${civic.site.villageName}` },
          {
            heading: "Confirm your idea",
            body: [],
            action: {
              lead: "Thank you for sharing an idea. To publish it, open this link and press the button on the page:",
              label: "Publish your idea",
              url: `${civic.site.baseUrl}/ideas/confirm/${token}`,
            },
            after: ["If it was not you, ignore this message: nothing will be published."],
            footer: { why: "You get this message because this address was given with an idea on our site." },
          },
        ),
      );
    }
    return { id: row.id, published };
  });
}

export { ImageError };

/** The purpose of an idea's confirmation link (core/links.ts). */
export const IDEA_CONFIRM = "idea-confirm";
const CONFIRM = IDEA_CONFIRM;

/** Publishes an unconfirmed idea by its link token (used once). Returns its id, or null for an unknown or used token. */
export async function confirmIdea(civic: Civic, token: string): Promise<number | null> {
  const now = civic.now();
  const at = now.toISOString();
  return civic.database.db.transaction().execute(async (tx) => {
    const link = await useLink(tx, CONFIRM, token, now);
    if (!link || link.ref === null) return null;
    const row = await tx
      .updateTable("ideas")
      .set({ status: "open", published_at: at, updated_at: at })
      .where("id", "=", Number(link.ref))
      .where("status", "=", "unconfirmed")
      .returning("id")
      .executeTakeFirst();
    return row?.id ?? null;
  });
}

/** Adds or withdraws a resident's support; one per account (primary key), the public count kept in step. */
export async function setSupport(civic: Civic, ideaId: number, accountId: string, support: boolean): Promise<void> {
  await civic.database.db.transaction().execute(async (tx) => {
    let changed: bigint | undefined;
    if (support) {
      const r = await tx
        .insertInto("idea_supports")
        .values({ idea_id: ideaId, account_id: accountId, created_at: civic.now().toISOString() })
        .onConflict((oc) => oc.columns(["idea_id", "account_id"]).doNothing())
        .executeTakeFirst();
      changed = r.numInsertedOrUpdatedRows;
    } else {
      const r = await tx
        .deleteFrom("idea_supports")
        .where("idea_id", "=", ideaId)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      changed = r.numDeletedRows;
    }
    if (Number(changed ?? 0n) === 1) {
      await tx
        .updateTable("ideas")
        .set((eb) => ({ supports: eb("supports", support ? "+" : "-", 1) }))
        .where("id", "=", ideaId)
        .execute();
    }
  });
}

/** Staff set a status with a public response; "adopted" names the project it became. */
/**
 * Staff answer an idea: a status and a public response; adopted and done ideas link to their project. Checks every
 * field at once (problems for the form) and writes the change with its audit row in one transaction.
 */
export async function setIdeaStatus(
  civic: Civic,
  actorId: string,
  ideaId: number,
  input: { status: string; response: string; project: string },
): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  const status = STAFF_STATUSES.find((s) => s === input.status);
  if (!status) problems.push({ field: "status", message: "Choose a status from the list" });
  const response = input.response.trim();
  if (response === "" || response.length > 5000) {
    problems.push({ field: "response", message: "Write a public response (up to 5,000 characters)" });
  }
  const project = input.project
    ? await civic.database.db.selectFrom("projects").select("id").where("id", "=", input.project).executeTakeFirst()
    : undefined;
  if (input.project && !project) problems.push({ field: "project", message: "Choose a project from the list" });
  else if (status === "adopted" && !project) {
    problems.push({ field: "project", message: "Choose the project an adopted idea became" });
  }
  if (problems.length > 0 || !status) return problems;
  const at = civic.now().toISOString();
  const projectId = status === "adopted" || status === "done" ? (project?.id ?? null) : null;
  await civic.database.db.transaction().execute(async (tx) => {
    await tx
      .updateTable("ideas")
      .set({ status, response, project_id: projectId, updated_at: at })
      .where("id", "=", ideaId)
      .where("status", "!=", "unconfirmed")
      .execute();
    await recordAudit(tx, {
      actorId,
      action: "idea.status",
      itemType: "idea",
      itemId: ideaId,
      details: { status, project: projectId },
      at,
    });
  });
  return [];
}

/** Public ideas (published and not hidden by moderators), newest or most supported first. */
export function publicIdeas(db: Kysely<DB>, o: { sort: "newest" | "supported"; status: string; limit: number }) {
  let q = db
    .selectFrom("ideas")
    .leftJoin("places", "places.id", "ideas.place_id")
    .select([
      "ideas.id",
      "ideas.title",
      "ideas.description",
      "ideas.category",
      "ideas.status",
      "ideas.supports",
      "ideas.published_at",
      "ideas.updated_at",
      "ideas.project_id",
      "places.name as place_name",
    ])
    .where("ideas.status", "!=", "unconfirmed")
    .where(publicIn("ideas"));
  if (isPublicStatus(o.status)) q = q.where("ideas.status", "=", o.status);
  q =
    o.sort === "supported"
      ? q.orderBy("ideas.supports", "desc").orderBy("ideas.id", "desc")
      : q.orderBy("ideas.id", "desc");
  return q.limit(o.limit).execute();
}
