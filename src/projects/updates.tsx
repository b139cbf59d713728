import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Prose } from "../core/web/components.js";
import { sendAtomFeed } from "../core/http/feed.js";
import { markdownToHtml } from "../core/web/markdown.js";
import type { Project } from "../core/db/schema.js";
import { ProjectParams, projectOr404 } from "./service.js";

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });

interface UpdateRow {
  id: number;
  title: string;
  body: string;
  posted_at: string;
}

/** A project's volunteer roles, the ideas it came from, and its dated updates. */
export function ProjectExtras(p: {
  project: Project;
  roles: string[];
  ideas: { id: number; title: string }[];
  updates: UpdateRow[];
}) {
  return (
    <>
      {p.roles.length > 0 ? (
        <section aria-labelledby="roles">
          <h2 id="roles">Volunteer roles</h2>
          <ul>
            {p.roles.map((r) => (
              <li key={r}>
                {r}:{" "}
                <a href={`/volunteer?project=${encodeURIComponent(p.project.id)}&role=${encodeURIComponent(r)}`}>
                  sign up<span class="visually-hidden"> as {r}</span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {p.ideas.length > 0 ? (
        <section aria-labelledby="from-ideas">
          <h2 id="from-ideas">From residents’ ideas</h2>
          <ul>
            {p.ideas.map((i) => (
              <li key={i.id}>
                <a href={`/ideas/${i.id}`}>{i.title}</a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="updates">
        <h2 id="updates">Updates</h2>
        <p>
          <a href={`/projects/${p.project.id}/updates.atom`}>Atom feed of updates</a>
        </p>
        {p.updates.length === 0 ? <p>No updates yet.</p> : null}
        {p.updates.map((u) => (
          <article key={u.id}>
            <h3>{u.title}</h3>
            <p>
              <time dateTime={u.posted_at}>{dateFormat.format(new Date(u.posted_at))}</time>
            </p>
            <Prose html={markdownToHtml(u.body, { headingOffset: 3 })} />
          </article>
        ))}
      </section>
    </>
  );
}

/** Each project's Atom feed of updates (staff post them from /admin/projects, see admin.tsx). */
export async function projectUpdateRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;

  app.get("/projects/:id/updates.atom", { schema: { hide: true, params: ProjectParams } }, async (request, reply) => {
    const p = await projectOr404(db(), request.params.id);
    const updates = await db()
      .selectFrom("project_updates")
      .selectAll()
      .where("project_id", "=", p.id)
      .orderBy("posted_at", "desc")
      .limit(50)
      .execute();
    const base = civic.site.baseUrl;
    const page = `${base}/projects/${encodeURIComponent(p.id)}`;
    return sendAtomFeed(request, reply, {
      title: `${p.title}: updates`,
      selfUrl: `${page}/updates.atom`,
      pageUrl: page,
      entries: updates.map((u) => ({
        id: `${page}#update-${u.id}`,
        url: page,
        title: u.title,
        published: u.posted_at,
        updated: u.posted_at,
        summary: u.body.slice(0, 2000),
      })),
    });
  });
}
