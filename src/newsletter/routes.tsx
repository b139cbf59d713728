import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ButtonForm, ErrorSummary, Field, PostForm } from "../core/web/forms.js";
import { TokenParams } from "../core/tokens.js";
import { mailboxKey, normaliseEmail } from "../core/email-address.js";
import { Honeypot } from "../core/web/components.js";
import { sendAtomFeed } from "../core/http/feed.js";
import { pageContext } from "../core/context.js";
import { notFound, type FieldProblem } from "../core/http/errors.js";
import { IdParams } from "../core/http/ids.js";
import { AlreadySent, oncePerForm } from "../core/http/single-use.js";
import { publicFormLimit, spamChecks, stringFields } from "../core/http/public-form.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { IssueArticle, issueDate } from "./pages.js";
import {
  confirmSubscription,
  consentSentence,
  NEWSLETTER_CONFIRM,
  pendingConfirmation,
  subscribe,
  subscriberByUnsubscribeToken,
  subscriptionEnded,
  unsubscribe,
} from "./service.js";
import { emailLinkPage } from "../core/web/link-page.js";

const PER_EMAIL = { name: "newsletter-email", max: 3, windowMs: 60 * 60_000 };

/** /newsletter: double opt-in subscription, one-click unsubscribe (RFC 8058), the public archive and its feed. */
export async function newsletterRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;
  const limiter = civic.limits;

  function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    email: string,
    problems: FieldProblem[],
    status = 200,
  ) {
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Newsletter" description="Get village news by email.">
        <h1>Newsletter</h1>
        <p class="lead">
          A short email about village news, projects and fixed reports, about once a month. You can stop it at any time.
        </p>
        <ErrorSummary problems={problems} />
        <PostForm action="/newsletter" csrfToken={ctx.csrfToken}>
          <Field
            id="email"
            type="email"
            label="Email address"
            value={email}
            problems={problems}
            autocomplete="email"
            maxLength={254}
          />
          <p id="consent">{consentSentence(civic.site.villageName)}</p>
          <p>
            We send a link to confirm first; nothing else is sent until you use it. See our{" "}
            <a href="/privacy">privacy notice</a>.
          </p>
          <Honeypot />
          <button type="submit">Subscribe</button>
        </PostForm>
        <p>
          <a href="/newsletter/archive">Read past issues</a>
        </p>
      </Layout>,
      status,
    );
  }

  app.get("/newsletter", { schema: { hide: true } }, async (request, reply) => renderForm(request, reply, "", []));

  app.post("/newsletter", { schema: { hide: true }, config: publicFormLimit(civic) }, async (request, reply) => {
    const f = stringFields(request.body);
    const typed = (f.email ?? "").slice(0, 254);
    const { token, problems } = spamChecks(civic, f);
    const email = normaliseEmail(typed);
    if (!email) problems.push({ field: "email", message: "Enter an email address, like name@example.com" });
    if (problems.length > 0) return renderForm(request, reply, typed, problems, 400);
    const ctx = pageContext(request);
    const done = await oncePerForm(civic, token, "newsletter-subscribe", async (record) => {
      const limited = await limiter.hit(PER_EMAIL, mailboxKey(email!));
      if (limited.allowed) await subscribe(civic, email!, record);
    });
    if ("earlier" in done) {
      return sendPage(
        reply,
        <Layout ctx={ctx} title="Already sent">
          <AlreadySent what="request">
            <p>If the address is not subscribed yet, the confirmation link is on its way.</p>
          </AlreadySent>
        </Layout>,
      );
    }
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Check your email">
        <h1>Check your email</h1>
        <p class="lead">
          If this address is not subscribed yet, we have sent it a link. Open it and press “Confirm” to start receiving
          the newsletter.
        </p>
      </Layout>,
    );
  });

  emailLinkPage(app, {
    path: "/newsletter/confirm",
    purpose: NEWSLETTER_CONFIRM,
    title: "Confirm your subscription",
    gone: "This link has been used already or is not valid.",
    askAgain: { href: "/newsletter", label: "Subscribe again" },
    body: async (link, { token, csrfToken }) =>
      (await pendingConfirmation(db(), link)) ? (
        <>
          <p id="consent">{consentSentence(civic.site.villageName)}</p>
          <ButtonForm action={`/newsletter/confirm/${token}`} csrfToken={csrfToken} label="Confirm" />
        </>
      ) : null,
  });

  app.post("/newsletter/confirm/:token", { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const ok = await confirmSubscription(civic, token);
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title={ok ? "You are subscribed" : "Link not valid"}>
        <h1>{ok ? "You are subscribed" : "This link is not valid"}</h1>
        <p>
          {ok
            ? "Thank you. Every issue has a link to stop it with one click."
            : "It has been used already or has expired."}
        </p>
      </Layout>,
      ok ? 200 : 410,
    );
  });

  /** An unsubscribe link whose subscription was deleted (30 days after it stopped): nothing is sent under it. */
  const ended = (request: FastifyRequest, reply: FastifyReply) =>
    sendPage(
      reply,
      <Layout ctx={pageContext(request)} title="Unsubscribed">
        <h1>This subscription has ended</h1>
        <p>
          Nothing more is sent under this link, and we no longer keep the address it was for. You can{" "}
          <a href="/newsletter">subscribe again</a> at any time.
        </p>
      </Layout>,
    );

  app.get("/newsletter/unsubscribe/:token", { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const subscriber = await subscriberByUnsubscribeToken(civic, token);
    const ctx = pageContext(request);
    if (!subscriber && (await subscriptionEnded(civic, token))) return ended(request, reply);
    if (!subscriber) throw notFound("This unsubscribe link is not valid.");
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Unsubscribe from the newsletter">
        <h1>Unsubscribe from the newsletter</h1>
        {subscriber.status === "unsubscribed" ? (
          <p>You are not subscribed any more. Nothing more will be sent.</p>
        ) : (
          <form method="post" action={`/newsletter/unsubscribe/${token}`}>
            <input type="hidden" name="List-Unsubscribe" value="One-Click" />
            <button type="submit">Unsubscribe</button>
          </form>
        )}
      </Layout>,
    );
  });

  // RFC 8058: mail clients POST "List-Unsubscribe=One-Click" with no cookie and no form token; the unguessable
  // token in the address is the authorisation, so this route is exempt from the form-token check.
  app.post(
    "/newsletter/unsubscribe/:token",
    { schema: { hide: true, params: TokenParams }, config: { csrf: false } },
    async (request, reply) => {
      const { token } = request.params;
      const subscriber = await subscriberByUnsubscribeToken(civic, token);
      if (!subscriber && (await subscriptionEnded(civic, token))) return ended(request, reply);
      if (!subscriber) throw notFound("This unsubscribe link is not valid.");
      await unsubscribe(civic, subscriber.id);
      const ctx = pageContext(request);
      return sendPage(
        reply,
        <Layout ctx={ctx} title="Unsubscribed">
          <h1>You are unsubscribed</h1>
          <p>
            Nothing more will be sent to you. You can <a href="/newsletter">subscribe again</a> at any time.
          </p>
        </Layout>,
      );
    },
  );

  const sentIssues = () =>
    db()
      .selectFrom("newsletter_issues")
      .selectAll()
      .where("status", "=", "sent")
      .orderBy("sent_at", "desc")
      .limit(100)
      .execute();

  app.get("/newsletter/archive", { schema: { hide: true } }, async (request, reply) => {
    const issues = await sentIssues();
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout
        ctx={ctx}
        title="Newsletter archive"
        description="Every newsletter sent, newest first."
        head={<link rel="alternate" type="application/atom+xml" title="Newsletter" href="/newsletter/archive.atom" />}
      >
        <h1>Newsletter archive</h1>
        <p>
          <a href="/newsletter">Subscribe</a> · <a href="/newsletter/archive.atom">Atom feed</a>
        </p>
        {issues.length === 0 ? <p>No issue has been sent yet.</p> : null}
        <ul>
          {issues.map((i) => (
            <li key={i.id}>
              <a href={`/newsletter/archive/${i.id}`}>{i.title}</a> ({issueDate(i.sent_at ?? i.created_at)})
            </li>
          ))}
        </ul>
      </Layout>,
    );
  });

  app.get("/newsletter/archive.atom", { schema: { hide: true } }, async (request, reply) => {
    const issues = await sentIssues();
    const base = civic.site.baseUrl;
    return sendAtomFeed(request, reply, {
      title: `${civic.site.villageName} newsletter`,
      selfUrl: `${base}/newsletter/archive.atom`,
      pageUrl: `${base}/newsletter/archive`,
      entries: issues.map((i) => ({
        id: `${base}/newsletter/archive/${i.id}`,
        url: `${base}/newsletter/archive/${i.id}`,
        title: i.title,
        published: i.sent_at ?? i.created_at,
        updated: i.sent_at ?? i.updated_at,
        summary: i.body.slice(0, 1000),
      })),
    });
  });

  app.get("/newsletter/archive/:id", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const { id } = request.params;
    const issue = await db()
      .selectFrom("newsletter_issues")
      .selectAll()
      .where("id", "=", id)
      .where("status", "=", "sent")
      .executeTakeFirst();
    if (!issue) throw notFound("There is no newsletter issue at this address.");
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title={issue.title}>
        <p>
          <a href="/newsletter/archive">All issues</a>
        </p>
        <IssueArticle issue={issue} />
      </Layout>,
    );
  });
}
