import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { ErrorSummary, PostForm } from "../core/web/forms.js";
import { type StaffScope, staffViewer } from "../core/staff/guard.js";
import { renderAdminPage } from "../core/staff/layout.js";
import type { StaffNavEntry } from "../core/staff/nav.js";
import { Select, TextArea } from "../core/web/components.js";
import { notFound, type FieldProblem } from "../core/http/errors.js";
import { IdParams } from "../core/http/ids.js";
import { stringFields } from "../core/http/public-form.js";
import { isPublic } from "../core/visibility.js";
import { IDEA_STATUS_LABELS, isPublicStatus, setIdeaStatus, STAFF_STATUSES, type StaffStatus } from "./service.js";

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [{ label: "Ideas", path: "/admin/ideas", minimum: "moderator", order: 50 }];

const listQuery = Type.Object({ status: Type.Optional(Type.String({ maxLength: 40 })) });
const statusLabel = (s: string) => IDEA_STATUS_LABELS[s as keyof typeof IDEA_STATUS_LABELS] ?? s;

/** /admin/ideas: staff answer residents' ideas with a status and a public response (audited). */
export async function ideaStaffRoutes(app: StaffScope): Promise<void> {
  const { civic } = app;
  const db = () => civic.database.db;

  async function load(id: number) {
    const idea = await db()
      .selectFrom("ideas")
      .selectAll()
      .where("id", "=", id)
      .where("status", "!=", "unconfirmed")
      .executeTakeFirst();
    if (!idea) throw notFound("There is no idea at this address.");
    return idea;
  }

  async function showIdea(
    request: FastifyRequest,
    reply: FastifyReply,
    idea: Awaited<ReturnType<typeof load>>,
    values: { status: string; response: string; project: string },
    problems: FieldProblem[],
    notice?: string,
  ) {
    const projects = await db().selectFrom("projects").select(["id", "title"]).orderBy("title").execute();
    return renderAdminPage(
      request,
      reply,
      `Idea: ${idea.title}`,
      (ctx) => (
        <>
          <p>
            <a href="/admin/ideas">All ideas</a> · <a href={`/ideas/${idea.id}`}>Public page</a>
          </p>
          <h1>{idea.title}</h1>
          {notice ? (
            <p role="status" class="notice notice-success">
              {notice}
            </p>
          ) : null}
          <p>
            {statusLabel(idea.status)} · {idea.supports} supporters
            {!isPublic(idea.visibility) ? ` · ${idea.visibility} by moderators` : ""}
          </p>
          <blockquote>{idea.description}</blockquote>
          <h2>Answer this idea</h2>
          <ErrorSummary problems={problems} />
          <PostForm action={`/admin/ideas/${idea.id}`} csrfToken={ctx.csrfToken}>
            <Select
              id="status"
              label="Status"
              value={values.status}
              options={STAFF_STATUSES.map((s) => ({ value: s, label: IDEA_STATUS_LABELS[s] }))}
              problems={problems}
            />
            <Select
              id="project"
              label="Project"
              hint="Needed for adopted ideas: the idea links to the project and back."
              value={values.project}
              options={projects.map((p) => ({ value: p.id, label: p.title }))}
              problems={problems}
              empty="No project"
            />
            <TextArea id="response" label="Public response" value={values.response} problems={problems} rows={5} />
            <button type="submit">Save answer</button>
          </PostForm>
        </>
      ),
      { status: problems.length ? 400 : 200, hasErrors: problems.length > 0 },
    );
  }

  app.get("/ideas", { schema: { hide: true, querystring: listQuery } }, async (request, reply) => {
    const status = request.query.status && isPublicStatus(request.query.status) ? request.query.status : "";
    let q = db()
      .selectFrom("ideas")
      .select(["id", "title", "status", "supports", "visibility", "created_at"])
      .where("status", "!=", "unconfirmed");
    if (status) q = q.where("status", "=", status);
    const ideas = await q.orderBy("created_at", "desc").orderBy("id", "desc").limit(200).execute();
    return renderAdminPage(request, reply, "Ideas", () => (
      <>
        <h1>Ideas</h1>
        <form method="get" action="/admin/ideas" class="filters">
          <Select
            id="status"
            label="Status"
            value={status}
            options={Object.entries(IDEA_STATUS_LABELS).map(([value, label]) => ({ value, label }))}
            problems={[]}
            empty="Any status"
          />
          <button type="submit">Show ideas</button>
        </form>
        {ideas.length === 0 ? <p>No ideas match.</p> : null}
        <table class="stacked">
          <caption>Newest first (up to 200)</caption>
          <thead>
            <tr>
              <th scope="col">Idea</th>
              <th scope="col">Status</th>
              <th scope="col">Supporters</th>
              <th scope="col">Shared</th>
            </tr>
          </thead>
          <tbody>
            {ideas.map((i) => (
              <tr key={i.id}>
                <td data-label="Idea">
                  <a href={`/admin/ideas/${i.id}`}>{i.title}</a>
                  {!isPublic(i.visibility) ? ` (${i.visibility})` : ""}
                </td>
                <td data-label="Status">{statusLabel(i.status)}</td>
                <td data-label="Supporters">{i.supports}</td>
                <td data-label="Shared">
                  <time dateTime={i.created_at}>{i.created_at.slice(0, 10)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </>
    ));
  });

  app.get(
    "/ideas/:id",
    { schema: { hide: true, params: IdParams, querystring: Type.Object({ saved: Type.Optional(Type.String()) }) } },
    async (request, reply) => {
      const idea = await load(request.params.id);
      const values = {
        status: STAFF_STATUSES.includes(idea.status as StaffStatus) ? idea.status : "under-consideration",
        response: idea.response ?? "",
        project: idea.project_id ?? "",
      };
      return showIdea(request, reply, idea, values, [], request.query.saved ? "Saved." : undefined);
    },
  );

  app.post("/ideas/:id", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const idea = await load(request.params.id);
    const f = stringFields(request.body);
    const values = {
      status: (f.status ?? "").slice(0, 40),
      response: (f.response ?? "").slice(0, 10_000),
      project: (f.project ?? "").slice(0, 100),
    };
    const problems = await setIdeaStatus(civic, staffViewer(request).accountId, idea.id, values);
    if (problems.length > 0) return showIdea(request, reply, idea, values, problems);
    return reply.redirect(`/admin/ideas/${idea.id}?saved=1`, 303);
  });
}
