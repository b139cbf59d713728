import type { FastifyInstance } from "fastify";
import { pageContext } from "../core/context.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { councillorContactRoutes } from "./contact.js";

/** /councillors: who represents the village and how to reach them. Councillors' contacts are public by role. */
export async function councillorRoutes(app: FastifyInstance): Promise<void> {
  await app.register(councillorContactRoutes);
  app.get("/councillors", { schema: { hide: true } }, async (request, reply) => {
    const rows = await app.civic.database.db.selectFrom("councillors").selectAll().orderBy("sort_order").execute();
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Your councillors" description="Who represents the village and how to reach them.">
        <h1>Your councillors</h1>
        <p class="lead">
          Councillors are elected to represent you. Contact them about local matters, or meet them at a surgery.
        </p>
        <p>
          To report a problem such as a pothole or a broken light, <a href="/report">report an issue</a> instead: it
          reaches the right council department directly.
        </p>
        <ul class="cards">
          {rows.map((c) => {
            const responsibilities = JSON.parse(c.responsibilities) as string[];
            return (
              <li class="card" key={c.id} id={c.id}>
                <h2>
                  <a href={`/councillors/${c.id}`}>{c.name}</a>
                </h2>
                <p>
                  {c.role}, {c.ward}
                  {c.party ? ` (${c.party})` : " (Independent)"}
                </p>
                <dl>
                  <dt>Email</dt>
                  <dd>
                    <a href={`mailto:${c.email}`}>{c.email}</a>
                  </dd>
                  {c.phone ? (
                    <>
                      <dt>Phone</dt>
                      <dd>
                        <a href={`tel:${c.phone.replace(/\s+/g, "")}`}>{c.phone}</a>
                      </dd>
                    </>
                  ) : null}
                  {c.surgery ? (
                    <>
                      <dt>Surgery</dt>
                      <dd>{c.surgery}</dd>
                    </>
                  ) : null}
                  {responsibilities.length > 0 ? (
                    <>
                      <dt>Responsibilities</dt>
                      <dd>{responsibilities.join(", ")}</dd>
                    </>
                  ) : null}
                </dl>
              </li>
            );
          })}
        </ul>
      </Layout>,
    );
  });
}
