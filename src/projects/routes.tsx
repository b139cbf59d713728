import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { pageContext } from "../core/context.js";
import type { Project } from "../core/db/schema.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { Prose } from "../core/web/components.js";
import { markdownToHtml } from "../core/web/markdown.js";
import { publicIn } from "../core/visibility.js";
import { parseRoles, ProjectParams, projectOr404 } from "./service.js";
import { STATUS_LABEL } from "./status.js";
import { ProjectExtras, projectUpdateRoutes } from "./updates.js";

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });

/** /projects and /projects/{id}: community projects, what is planned, under way and done. */
export async function projectRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const db = () => app.civic.database.db;
  await app.register(projectUpdateRoutes);

  app.get("/projects", { schema: { hide: true } }, async (request, reply) => {
    const rows = await db().selectFrom("projects").selectAll().orderBy("started_on", "desc").execute();
    const ctx = pageContext(request);
    const groups: Project["status"][] = ["active", "planned", "completed"];
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Projects" description="Community projects: what is planned, under way and done.">
        <h1>Community projects</h1>
        <p class="lead">
          What volunteers in the village are working on. Want to help? See how to <a href="/volunteer">volunteer</a>.
        </p>
        {groups.map((status) => {
          const items = rows.filter((p) => p.status === status);
          if (items.length === 0) return null;
          return (
            <section key={status} aria-labelledby={`projects-${status}`}>
              <h2 id={`projects-${status}`}>{STATUS_LABEL[status]}</h2>
              <ul class="cards">
                {items.map((p) => (
                  <li class="card" key={p.id}>
                    <h3>
                      <a href={`/projects/${p.id}`}>{p.title}</a>
                    </h3>
                    <p>{p.summary}</p>
                    {p.volunteers_wanted ? <p class="tag">Volunteers wanted</p> : null}
                  </li>
                ))}
              </ul>
            </section>
          );
        })}
      </Layout>,
    );
  });

  app.get("/projects/:id", { schema: { hide: true, params: ProjectParams } }, async (request, reply) => {
    const { id } = request.params;
    const p = await projectOr404(db(), id);
    const [ideas, updates] = await Promise.all([
      db()
        .selectFrom("ideas")
        .select(["id", "title"])
        .where("project_id", "=", p.id)
        .where(publicIn("ideas"))
        .where("status", "!=", "unconfirmed")
        .orderBy("id")
        .execute(),
      db()
        .selectFrom("project_updates")
        .selectAll()
        .where("project_id", "=", p.id)
        .orderBy("posted_at", "desc")
        .limit(50)
        .execute(),
    ]);
    const roles = parseRoles(p.roles);
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout
        ctx={ctx}
        title={p.title}
        description={p.summary}
        head={
          <link
            rel="alternate"
            type="application/atom+xml"
            title={`${p.title}: updates`}
            href={`/projects/${p.id}/updates.atom`}
          />
        }
      >
        <p>
          <a href="/projects">All projects</a>
        </p>
        <h1>{p.title}</h1>
        <p class="lead">{p.summary}</p>
        <dl>
          <dt>Status</dt>
          <dd>{STATUS_LABEL[p.status]}</dd>
          <dt>Started</dt>
          <dd>
            <time dateTime={p.started_on}>{dateFormat.format(new Date(`${p.started_on}T00:00:00Z`))}</time>
          </dd>
          {p.ends_on ? (
            <>
              <dt>Ends</dt>
              <dd>
                <time dateTime={p.ends_on}>{dateFormat.format(new Date(`${p.ends_on}T00:00:00Z`))}</time>
              </dd>
            </>
          ) : null}
          <dt>Led by</dt>
          <dd>{p.lead}</dd>
        </dl>
        <Prose html={markdownToHtml(p.body)} />
        {p.volunteers_wanted ? (
          <p>
            <strong>Volunteers wanted.</strong>{" "}
            <a href={`/volunteer?project=${encodeURIComponent(p.id)}`}>Find out how to help</a>.
          </p>
        ) : null}
        <ProjectExtras project={p} roles={roles} ideas={ideas} updates={updates} />
      </Layout>,
    );
  });
}
