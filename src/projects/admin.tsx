import type { FastifyReply, FastifyRequest } from "fastify";
import type { FieldProblem } from "../core/http/errors.js";
import { Type } from "typebox";
import { ErrorSummary, Field, PostForm } from "../core/web/forms.js";
import { type StaffScope, staffViewer } from "../core/staff/guard.js";
import { renderAdminPage } from "../core/staff/layout.js";
import type { StaffNavEntry } from "../core/staff/nav.js";
import { Select, TextArea } from "../core/web/components.js";
import type { Project } from "../core/db/schema.js";
import { stringFields } from "../core/http/public-form.js";
import type { PageContext } from "../core/web/layout.js";
import {
  emptyProject,
  PROJECT_STATUSES,
  type ProjectInput,
  postProjectUpdate,
  projectInput,
  ProjectParams,
  projectOr404,
  saveProject,
} from "./service.js";
import { STATUS_LABEL } from "./status.js";

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [
  { label: "Projects", path: "/admin/projects", minimum: "moderator", order: 55 },
];

const savedQuery = Type.Object({ saved: Type.Optional(Type.String({ maxLength: 10 })) });
const statusOptions = PROJECT_STATUSES.map((s) => ({ value: s, label: STATUS_LABEL[s] }));

/** Reads the posted project form, every field cut to a safe length (the checks then say what is wrong). */
function readProject(body: unknown): ProjectInput {
  const f = stringFields(body);
  const cut = (k: string, n: number) => (f[k] ?? "").slice(0, n);
  return {
    slug: cut("slug", 200),
    title: cut("title", 400),
    summary: cut("summary", 1000),
    body: cut("body", 100_000),
    status: cut("status", 40),
    startedOn: cut("startedOn", 40).trim(),
    endsOn: cut("endsOn", 40).trim(),
    lead: cut("lead", 300),
    roles: cut("roles", 5000),
  };
}

function ProjectForm(p: {
  ctx: PageContext;
  action: string;
  values: ProjectInput;
  problems: FieldProblem[];
  isNew: boolean;
}) {
  const { values: v, problems } = p;
  return (
    <PostForm action={p.action} csrfToken={p.ctx.csrfToken}>
      <Field id="title" label="Title" value={v.title} problems={problems} maxLength={150} />
      {p.isNew ? (
        <Field
          id="slug"
          label="Web address (optional)"
          hint="Lower-case letters, digits and hyphens, like village-green. Left empty, it is made from the title. It cannot change later."
          value={v.slug}
          problems={problems}
          maxLength={60}
        />
      ) : (
        <p>
          Web address: <a href={`/projects/${v.slug}`}>/projects/{v.slug}</a> (fixed, so links keep working)
        </p>
      )}
      <TextArea
        id="summary"
        label="Summary"
        hint="One or two sentences."
        value={v.summary}
        problems={problems}
        rows={2}
      />
      <TextArea
        id="body"
        label="Description"
        hint="Markdown: blank lines separate paragraphs, # for headings, [text](https://…) for links. No images or HTML."
        value={v.body}
        problems={problems}
        rows={12}
      />
      <Select id="status" label="Status" value={v.status} options={statusOptions} problems={problems} />
      <Field id="startedOn" label="Start date" hint="Like 2026-03-01" value={v.startedOn} problems={problems} />
      <Field id="endsOn" label="End date (optional)" hint="Like 2026-09-30" value={v.endsOn} problems={problems} />
      <Field id="lead" label="Led by" value={v.lead} problems={problems} maxLength={100} />
      <TextArea
        id="roles"
        label="Volunteer roles (optional)"
        hint="One a line, like Litter picker. Residents can sign up for each on the volunteer form."
        value={v.roles}
        problems={problems}
        rows={4}
      />
      <button type="submit">{p.isNew ? "Create project" : "Save project"}</button>
    </PostForm>
  );
}

/** /admin/projects: staff create and edit projects and post their dated updates. */
export async function projectAdminRoutes(app: StaffScope): Promise<void> {
  const { civic } = app;
  const db = () => civic.database.db;

  function showNew(request: FastifyRequest, reply: FastifyReply, values: ProjectInput, problems: FieldProblem[]) {
    return renderAdminPage(
      request,
      reply,
      "New project",
      (ctx) => (
        <>
          <p>
            <a href="/admin/projects">All projects</a>
          </p>
          <h1>New project</h1>
          <ErrorSummary problems={problems} />
          <ProjectForm ctx={ctx} action="/admin/projects" values={values} problems={problems} isNew />
        </>
      ),
      { status: problems.length ? 400 : 200, hasErrors: problems.length > 0 },
    );
  }

  async function showEdit(
    request: FastifyRequest,
    reply: FastifyReply,
    project: Project,
    o: {
      values?: ProjectInput;
      problems?: FieldProblem[];
      update?: { title: string; body: string };
      notice?: string;
    } = {},
  ) {
    const problems = o.problems ?? [];
    const update = o.update ?? { title: "", body: "" };
    const updates = await db()
      .selectFrom("project_updates")
      .select(["id", "title", "posted_at"])
      .where("project_id", "=", project.id)
      .orderBy("posted_at", "desc")
      .limit(50)
      .execute();
    return renderAdminPage(
      request,
      reply,
      `Project: ${project.title}`,
      (ctx) => (
        <>
          <p>
            <a href="/admin/projects">All projects</a> · <a href={`/projects/${project.id}`}>Public page</a>
          </p>
          <h1>{project.title}</h1>
          {o.notice ? (
            <p role="status" class="notice notice-success">
              {o.notice}
            </p>
          ) : null}
          <ErrorSummary problems={problems} />
          <section aria-labelledby="edit">
            <h2 id="edit">Edit the project</h2>
            <ProjectForm
              ctx={ctx}
              action={`/admin/projects/${project.id}`}
              values={o.values ?? projectInput(project)}
              problems={problems}
              isNew={false}
            />
          </section>
          <section aria-labelledby="post-update">
            <h2 id="post-update">Post an update</h2>
            <PostForm action={`/admin/projects/${project.id}/updates`} csrfToken={ctx.csrfToken}>
              <Field id="updateTitle" label="Update title" value={update.title} problems={problems} maxLength={150} />
              <TextArea
                id="updateBody"
                label="Update"
                hint="Markdown. It is dated today and appears on the project page and in its Atom feed."
                value={update.body}
                problems={problems}
              />
              <button type="submit">Post update</button>
            </PostForm>
            <h3>Updates so far</h3>
            {updates.length === 0 ? <p>No updates yet.</p> : null}
            <ul>
              {updates.map((u) => (
                <li key={u.id}>
                  <time dateTime={u.posted_at}>{u.posted_at.slice(0, 10)}</time>: {u.title}
                </li>
              ))}
            </ul>
          </section>
        </>
      ),
      { status: problems.length ? 400 : 200, hasErrors: problems.length > 0 },
    );
  }

  app.get("/projects", { schema: { hide: true } }, async (request, reply) => {
    const rows = await db()
      .selectFrom("projects")
      .select(["id", "title", "status", "updated_at"])
      .orderBy("title")
      .limit(500)
      .execute();
    return renderAdminPage(request, reply, "Projects", () => (
      <>
        <h1>Projects</h1>
        <p>
          <a class="button" href="/admin/projects/new">
            Create a project
          </a>
        </p>
        <table class="stacked">
          <caption>Every project, by title</caption>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Status</th>
              <th scope="col">Last changed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.id}>
                <td data-label="Project">
                  <a href={`/admin/projects/${p.id}`}>{p.title}</a>
                </td>
                <td data-label="Status">{STATUS_LABEL[p.status]}</td>
                <td data-label="Last changed">
                  <time dateTime={p.updated_at}>{p.updated_at.slice(0, 10)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </>
    ));
  });

  app.get("/projects/new", { schema: { hide: true } }, (request, reply) =>
    showNew(request, reply, emptyProject(civic.now().toISOString().slice(0, 10)), []),
  );

  app.post("/projects", { schema: { hide: true } }, async (request, reply) => {
    const values = readProject(request.body);
    const result = await saveProject(civic, staffViewer(request).accountId, values, null);
    if ("problems" in result) return showNew(request, reply, values, result.problems);
    return reply.redirect(`/admin/projects/${result.id}?saved=1`, 303);
  });

  app.get(
    "/projects/:id",
    { schema: { hide: true, params: ProjectParams, querystring: savedQuery } },
    async (request, reply) => {
      const project = await projectOr404(db(), request.params.id);
      return showEdit(request, reply, project, { notice: request.query.saved ? "Saved." : undefined });
    },
  );

  app.post("/projects/:id", { schema: { hide: true, params: ProjectParams } }, async (request, reply) => {
    const project = await projectOr404(db(), request.params.id);
    const values = { ...readProject(request.body), slug: project.id };
    const result = await saveProject(civic, staffViewer(request).accountId, values, project);
    if ("problems" in result) return showEdit(request, reply, project, { values, problems: result.problems });
    return reply.redirect(`/admin/projects/${project.id}?saved=1`, 303);
  });

  app.post("/projects/:id/updates", { schema: { hide: true, params: ProjectParams } }, async (request, reply) => {
    const project = await projectOr404(db(), request.params.id);
    const f = stringFields(request.body);
    const update = { title: (f.updateTitle ?? "").slice(0, 400), body: (f.updateBody ?? "").slice(0, 30_000) };
    const problems = await postProjectUpdate(civic, staffViewer(request).accountId, project, update);
    if (problems.length > 0) return showEdit(request, reply, project, { problems, update });
    return reply.redirect(`/admin/projects/${project.id}?saved=1`, 303);
  });
}
