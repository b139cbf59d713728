import { recordAudit } from "../core/staff/audit.js";
import type { Kysely } from "kysely";
import { Type } from "typebox";
import type { Civic } from "../core/context.js";
import type { DB, Project } from "../core/db/schema.js";
import { notFound, type FieldProblem } from "../core/http/errors.js";
import { MARKDOWN_MAX_CHARS } from "../core/web/markdown.js";

/** Path parameters `{ id }` of a project's pages: its id is its web address (a slug, not a number). */
export const ProjectParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

/** The project with this id (its web address), or a 404. */
export async function projectOr404(db: Kysely<DB>, id: string): Promise<Project> {
  const p = await db.selectFrom("projects").selectAll().where("id", "=", id).executeTakeFirst();
  if (!p) throw notFound("There is no project at this address.");
  return p;
}

export const PROJECT_STATUSES: Project["status"][] = ["planned", "active", "completed"];
export const MAX_ROLES = 20;

/** What the staff project form holds: everything as typed, so a form with problems shows it all again. */
export interface ProjectInput {
  slug: string;
  title: string;
  summary: string;
  body: string;
  status: string;
  startedOn: string;
  endsOn: string;
  lead: string;
  /** One role a line. */
  roles: string;
}

export function emptyProject(today: string): ProjectInput {
  return {
    slug: "",
    title: "",
    summary: "",
    body: "",
    status: "planned",
    startedOn: today,
    endsOn: "",
    lead: "",
    roles: "",
  };
}

export function projectInput(p: Project): ProjectInput {
  return {
    slug: p.id,
    title: p.title,
    summary: p.summary,
    body: p.body,
    status: p.status,
    startedOn: p.started_on,
    endsOn: p.ends_on ?? "",
    lead: p.lead,
    roles: parseRoles(p.roles).join("\n"),
  };
}

/** A project's roles column (JSON) as a list; anything unreadable is no roles. */
export function parseRoles(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((r): r is string => typeof r === "string") : [];
  } catch {
    return [];
  }
}

/** A slug from a title: lower-case letters, digits and hyphens. */
export function slugify(title: string): string {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function validDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

function hasControl(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s);
}

/** The checked values of a project form, or its problems (every one at once). */
export function checkProject(input: ProjectInput, isNew: boolean): { problems: FieldProblem[]; roles: string[] } {
  const problems: FieldProblem[] = [];
  const add = (field: string, message: string) => problems.push({ field, message });
  const title = input.title.trim();
  if (title.length < 3 || title.length > 150 || hasControl(title)) add("title", "Enter a title of 3 to 150 characters");
  if (isNew) {
    const slug = input.slug.trim() || slugify(title);
    if (!SLUG.test(slug)) {
      add("slug", "Enter a web address of up to 60 lower-case letters, digits and hyphens, like village-green");
    } else if (slug === "new") add("slug", "Choose another web address: “new” is taken");
  }
  const summary = input.summary.trim();
  if (summary.length < 10 || summary.length > 300 || hasControl(summary)) {
    add("summary", "Enter a summary of 10 to 300 characters");
  }
  if (input.body.trim() === "" || input.body.length > MARKDOWN_MAX_CHARS) {
    add("body", `Describe the project (up to ${MARKDOWN_MAX_CHARS.toLocaleString("en-GB")} characters)`);
  }
  if (!PROJECT_STATUSES.includes(input.status as Project["status"])) add("status", "Choose a status from the list");
  if (!validDate(input.startedOn)) add("startedOn", "Enter the start date as a date, like 2026-03-01");
  if (input.endsOn !== "" && !validDate(input.endsOn)) {
    add("endsOn", "Enter the end date as a date, like 2026-09-30, or leave it empty");
  } else if (input.endsOn !== "" && validDate(input.startedOn) && input.endsOn < input.startedOn) {
    add("endsOn", "The end date must be on or after the start date");
  }
  const lead = input.lead.trim();
  if (lead === "" || lead.length > 100 || hasControl(lead))
    add("lead", "Say who leads the project (up to 100 characters)");
  const roles = [
    ...new Set(
      input.roles
        .split(/\r?\n/)
        .map((r) => r.trim())
        .filter((r) => r !== ""),
    ),
  ];
  if (roles.length > MAX_ROLES || roles.some((r) => r.length > 80 || hasControl(r))) {
    add("roles", `List up to ${MAX_ROLES} roles, one a line, each up to 80 characters`);
  }
  return { problems, roles };
}

/**
 * Creates a project (isNew) or saves one, with its audit row in the same transaction. The slug is the project's
 * web address: chosen once at creation and never changed, so links, feeds and ideas keep working. Returns the slug,
 * or the problems to show (a slug already taken).
 */
export async function saveProject(
  civic: Civic,
  actorId: string,
  input: ProjectInput,
  existing: Project | null,
): Promise<{ id: string } | { problems: FieldProblem[] }> {
  const { problems, roles } = checkProject(input, existing === null);
  if (problems.length > 0) return { problems };
  const now = civic.now().toISOString();
  const values = {
    title: input.title.trim(),
    summary: input.summary.trim(),
    body: input.body,
    status: input.status as Project["status"],
    started_on: input.startedOn,
    ends_on: input.endsOn || null,
    lead: input.lead.trim(),
    roles: JSON.stringify(roles),
    volunteers_wanted: roles.length > 0 ? 1 : 0,
    updated_at: now,
  };
  const id = existing?.id ?? (input.slug.trim() || slugify(values.title));
  const taken = async () =>
    !existing &&
    (await civic.database.db.selectFrom("projects").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;
  const takenProblem = {
    problems: [{ field: "slug", message: "Another project has this web address; choose another" }],
  };
  if (await taken()) return takenProblem;
  try {
    await civic.database.db.transaction().execute(async (tx) => {
      if (existing) {
        await tx.updateTable("projects").set(values).where("id", "=", id).execute();
      } else {
        await tx
          .insertInto("projects")
          .values({ ...values, id, created_at: now })
          .execute();
      }
      const changed = existing
        ? Object.keys(values).filter(
            (k) =>
              k !== "updated_at" && String(values[k as keyof typeof values]) !== String(existing[k as keyof Project]),
          )
        : [];
      await recordAudit(tx, {
        actorId,
        action: existing ? "project.edit" : "project.create",
        itemType: "project",
        itemId: id,
        details: existing ? { changed } : { title: values.title, status: values.status },
        at: now,
      });
    });
  } catch (error) {
    // Two staff creating the same address at once: the primary key refuses the second.
    if (await taken()) return takenProblem;
    throw error;
  }
  return { id };
}

/** Checks and posts a dated update to a project (with its audit row). */
export async function postProjectUpdate(
  civic: Civic,
  actorId: string,
  project: Project,
  input: { title: string; body: string },
): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  const title = input.title.trim();
  if (title === "" || title.length > 150 || hasControl(title)) {
    problems.push({ field: "updateTitle", message: "Enter a title of up to 150 characters" });
  }
  if (input.body.trim() === "" || input.body.length > 20_000) {
    problems.push({ field: "updateBody", message: "Write the update (up to 20,000 characters)" });
  }
  if (problems.length > 0) return problems;
  const at = civic.now().toISOString();
  await civic.database.db.transaction().execute(async (tx) => {
    const row = await tx
      .insertInto("project_updates")
      .values({ project_id: project.id, title, body: input.body, posted_at: at })
      .returning("id")
      .executeTakeFirstOrThrow();
    await tx.updateTable("projects").set({ updated_at: at }).where("id", "=", project.id).execute();
    await recordAudit(tx, {
      actorId,
      action: "project.update",
      itemType: "project",
      itemId: project.id,
      details: { update: row.id, title },
      at,
    });
  });
  return [];
}
