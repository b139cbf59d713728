import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { ButtonForm } from "../core/web/forms.js";
import { TokenParams } from "../core/tokens.js";
import { normaliseEmail } from "../core/email-address.js";
import { Select } from "../core/web/components.js";
import { sendAtomFeed } from "../core/http/feed.js";
import { AlreadySent, oncePerForm } from "../core/http/single-use.js";
import { pageContext } from "../core/context.js";
import { AppError, notFound, type FieldProblem } from "../core/http/errors.js";
import { IdParams } from "../core/http/ids.js";
import { MAIL_CAP_NOTICE } from "../core/mail/policy.js";
import { isStaff, publicFormLimit, spamChecks, stringFields } from "../core/http/public-form.js";
import { photoKey } from "../core/media/images.js";
import { mediaStorage } from "../core/media/storage.js";
import { withUploads } from "../core/media/uploads.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { ReportThisLink } from "../moderation/index.js";
import { isPublic } from "../core/visibility.js";
import { emptyIdea, IdeaForm } from "./pages.js";
import { can } from "../core/policy.js";
import {
  checkIdea,
  confirmIdea,
  IDEA_CATEGORIES,
  IDEA_CONFIRM,
  IDEA_STATUS_LABELS,
  ImageError,
  isPublicStatus,
  proposeIdea,
  publicIdeas,
  setSupport,
} from "./service.js";
import { emailLinkPage } from "../core/web/link-page.js";

const listQuery = Type.Object({
  sort: Type.Optional(Type.String({ maxLength: 20 })),
  status: Type.Optional(Type.String({ maxLength: 40 })),
});
const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });
const statusOptions = Object.entries(IDEA_STATUS_LABELS).map(([value, label]) => ({ value, label }));

/** /ideas: residents propose and support ideas; staff answer them with a status. */
export async function ideaRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;
  const storage = mediaStorage(civic.config);
  const places = () => db().selectFrom("places").select(["id", "name"]).orderBy("name").execute();

  async function loadPublic(id: number) {
    const idea = await db()
      .selectFrom("ideas")
      .leftJoin("places", "places.id", "ideas.place_id")
      .leftJoin("projects", "projects.id", "ideas.project_id")
      .selectAll("ideas")
      .select(["places.name as place_name", "projects.title as project_title"])
      .where("ideas.id", "=", id)
      .where("ideas.status", "!=", "unconfirmed")
      .executeTakeFirst();
    if (!idea || !isPublic(idea.visibility)) throw notFound("There is no idea at this address.");
    return idea;
  }

  app.get("/ideas", { schema: { hide: true, querystring: listQuery } }, async (request, reply) => {
    const q = request.query;
    const sort = q.sort === "supported" ? "supported" : "newest";
    const status = q.status && isPublicStatus(q.status) ? q.status : "";
    const ideas = await publicIdeas(db(), { sort, status, limit: 100 });
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout
        ctx={ctx}
        title="Ideas"
        description="Share an idea to improve the village."
        head={<link rel="alternate" type="application/atom+xml" title="Ideas" href="/ideas.atom" />}
      >
        <h1>Ideas</h1>
        <p class="lead">Ideas from residents to improve the village. Support the ones you like.</p>
        <p>
          <a class="button" href="/ideas/new">
            Share an idea
          </a>{" "}
          <a href="/ideas.atom">Atom feed</a>
        </p>
        <form method="get" action="/ideas" class="filters">
          <Select
            id="sort"
            label="Order"
            value={sort}
            options={[
              { value: "newest", label: "Newest first" },
              { value: "supported", label: "Most supported first" },
            ]}
            problems={[]}
          />
          <Select id="status" label="Status" value={status} options={statusOptions} problems={[]} empty="Any status" />
          <button type="submit">Show ideas</button>
        </form>
        {ideas.length === 0 ? <p>No ideas match.</p> : null}
        <ul class="cards">
          {ideas.map((i) => (
            <li class="card" key={i.id}>
              <h2>
                <a href={`/ideas/${i.id}`}>{i.title}</a>
              </h2>
              <p>
                {IDEA_STATUS_LABELS[i.status as keyof typeof IDEA_STATUS_LABELS]} · {i.supports}{" "}
                {i.supports === 1 ? "supporter" : "supporters"}
                {i.place_name ? ` · ${i.place_name}` : ""}
              </p>
            </li>
          ))}
        </ul>
      </Layout>,
    );
  });

  app.get("/ideas.atom", { schema: { hide: true } }, async (request, reply) => {
    const ideas = await publicIdeas(db(), { sort: "newest", status: "", limit: 50 });
    const base = civic.site.baseUrl;
    return sendAtomFeed(request, reply, {
      title: `${civic.site.villageName}: ideas`,
      selfUrl: `${base}/ideas.atom`,
      pageUrl: `${base}/ideas`,
      entries: ideas.map((i) => ({
        id: `${base}/ideas/${i.id}`,
        url: `${base}/ideas/${i.id}`,
        title: i.title,
        published: i.published_at ?? i.updated_at,
        updated: i.updated_at,
        summary: `${IDEA_STATUS_LABELS[i.status as keyof typeof IDEA_STATUS_LABELS]} · ${i.supports} supporters\n\n${i.description}`,
      })),
    });
  });

  async function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    values = emptyIdea(),
    problems: FieldProblem[] = [],
  ) {
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Share an idea">
        <IdeaForm
          values={values}
          problems={problems}
          csrfToken={ctx.csrfToken}
          places={await places()}
          signedIn={request.viewer !== null}
        />
      </Layout>,
      problems.length ? 400 : 200,
    );
  }

  app.get("/ideas/new", { schema: { hide: true } }, async (request, reply) => renderForm(request, reply));

  app.post("/ideas", { schema: { hide: true }, config: publicFormLimit(civic) }, async (request, reply) =>
    withUploads(
      request,
      (field) => field === "photo",
      async (files) => {
        const f = stringFields(request.body);
        const values = {
          title: (f.title ?? "").slice(0, 200),
          description: (f.description ?? "").slice(0, 6000),
          category: (f.category ?? "").slice(0, 40),
          place: (f.place ?? "").slice(0, 100),
          locationText: (f.location_text ?? "").slice(0, 300),
          email: (f.email ?? "").slice(0, 254),
        };
        const { token, problems } = spamChecks(civic, f);
        const accountId = request.viewer?.accountId ?? null;
        const email = accountId ? "" : normaliseEmail(values.email);
        problems.push(...(await checkIdeaSafe(values, accountId === null, email)));
        if (problems.length > 0) return renderForm(request, reply, values, problems);
        try {
          const done = await oncePerForm(civic, token, "idea", (record) =>
            proposeIdea(civic, { ...values, email: email ?? "" }, accountId, files[0], record),
          );
          if ("earlier" in done) return renderAlready(request, reply, done.earlier);
          return reply.redirect(done.first.published ? `/ideas/${done.first.id}` : "/ideas/sent", 303);
        } catch (error) {
          if (!(error instanceof ImageError)) throw error;
          return renderForm(request, reply, values, [{ field: "photo", message: `The photo ${error.message}` }]);
        }
      },
    ),
  );

  function renderAlready(request: FastifyRequest, reply: FastifyReply, earlier: string) {
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title="Already sent">
        <AlreadySent what="idea">
          <p>
            {earlier.startsWith("/ideas/") && earlier !== "/ideas/sent" ? (
              <a href={earlier}>See your idea</a>
            ) : (
              "Check your email for the link that publishes it."
            )}
          </p>
        </AlreadySent>
      </Layout>,
    );
  }

  async function checkIdeaSafe(values: ReturnType<typeof emptyIdea>, needsEmail: boolean, email: string | null) {
    const problems = await checkIdea(db(), { ...values, email: email ?? "" }, needsEmail);
    if (needsEmail && values.email !== "" && !email) {
      problems.push({ field: "email", message: "Enter an email address, like name@example.com" });
    }
    return problems;
  }

  app.get("/ideas/sent", { schema: { hide: true } }, async (request, reply) => {
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Check your email">
        <h1>Check your email</h1>
        <p class="lead">We have sent you a link. Open it and press “Publish my idea” to publish it.</p>
        <p>{MAIL_CAP_NOTICE}</p>
      </Layout>,
    );
  });

  emailLinkPage(app, {
    path: "/ideas/confirm",
    purpose: IDEA_CONFIRM,
    title: "Publish your idea",
    gone: "This link has been used already or is not valid.",
    askAgain: { href: "/ideas/new", label: "Share an idea" },
    body: (_link, { token, csrfToken }) => (
      <>
        <p>Press the button to publish your idea.</p>
        <ButtonForm action={`/ideas/confirm/${token}`} csrfToken={csrfToken} label="Publish my idea" />
      </>
    ),
  });

  app.post("/ideas/confirm/:token", { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const id = await confirmIdea(civic, request.params.token);
    if (id === null) throw new AppError("gone", "This link has been used already or is not valid.");
    return reply.redirect(`/ideas/${id}`, 303);
  });

  app.get("/ideas/:id", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const idea = await loadPublic(request.params.id);
    const ctx = pageContext(request);
    const supported = request.viewer
      ? await db()
          .selectFrom("idea_supports")
          .select("idea_id")
          .where("idea_id", "=", idea.id)
          .where("account_id", "=", request.viewer.accountId)
          .executeTakeFirst()
      : undefined;
    const category = IDEA_CATEGORIES.find((c) => c.value === idea.category)?.label;
    return sendPage(
      reply,
      <Layout ctx={ctx} title={idea.title} description={idea.description.slice(0, 150)}>
        <p>
          <a href="/ideas">All ideas</a>
        </p>
        <h1>{idea.title}</h1>
        <dl>
          <dt>Status</dt>
          <dd>{IDEA_STATUS_LABELS[idea.status as keyof typeof IDEA_STATUS_LABELS]}</dd>
          <dt>Supporters</dt>
          <dd id="supporters">{idea.supports}</dd>
          {category ? (
            <>
              <dt>Category</dt>
              <dd>{category}</dd>
            </>
          ) : null}
          {idea.place_name || idea.location_text ? (
            <>
              <dt>Place</dt>
              <dd>{[idea.place_name, idea.location_text].filter(Boolean).join(": ")}</dd>
            </>
          ) : null}
          {idea.published_at ? (
            <>
              <dt>Shared</dt>
              <dd>
                <time dateTime={idea.published_at}>{dateFormat.format(new Date(idea.published_at))}</time>
              </dd>
            </>
          ) : null}
        </dl>
        {idea.description.split(/\n\s*\n/).map((para, i) => (
          <p key={i}>{para}</p>
        ))}
        {idea.photo_hash ? <img src={`/ideas/${idea.id}/photo.jpg`} alt="Photo shared with the idea" /> : null}
        {idea.response ? (
          <section aria-labelledby="response">
            <h2 id="response">Response</h2>
            <p>{idea.response}</p>
          </section>
        ) : null}
        {idea.project_id && idea.project_title ? (
          <p>
            This idea became the project <a href={`/projects/${idea.project_id}`}>{idea.project_title}</a>.
          </p>
        ) : null}
        {request.viewer ? (
          <ButtonForm
            action={`/ideas/${idea.id}/support`}
            csrfToken={ctx.csrfToken}
            label={supported ? "Withdraw my support" : "I support this"}
            hidden={{ support: supported ? "no" : "yes" }}
          />
        ) : (
          <p>
            <a href={`/sign-in?next=${encodeURIComponent(`/ideas/${idea.id}`)}`}>Sign in</a> to support this idea.
          </p>
        )}
        <p>
          <ReportThisLink kind="idea" id={String(idea.id)} noun="idea" />
        </p>
        {isStaff(request) ? (
          <p>
            <a href={`/admin/ideas/${idea.id}`}>Answer this idea (staff)</a>
          </p>
        ) : null}
      </Layout>,
    );
  });

  app.get("/ideas/:id/photo.jpg", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const idea = await loadPublic(request.params.id);
    const data = idea.photo_hash ? await storage.get(photoKey(idea.photo_hash, "full")) : null;
    if (!data) throw notFound("This idea has no photo.");
    return reply.header("content-type", "image/jpeg").header("cache-control", "public, max-age=3600").send(data);
  });

  app.post("/ideas/:id/support", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const idea = await loadPublic(request.params.id);
    const viewer = request.viewer;
    const subject = { type: "item", authorId: idea.account_id, authorRole: null, state: "public" } as const;
    if (!viewer || !can(viewer, "item.support", subject)) {
      return reply.redirect(`/sign-in?next=${encodeURIComponent(`/ideas/${idea.id}`)}`, 303);
    }
    const f = stringFields(request.body);
    await setSupport(civic, idea.id, viewer.accountId, f.support !== "no");
    return reply.redirect(`/ideas/${idea.id}`, 303);
  });
}
