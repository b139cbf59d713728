import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ButtonForm } from "../core/web/forms.js";
import { normaliseEmail } from "../core/email-address.js";
import { TokenParams } from "../core/tokens.js";
import { pageContext } from "../core/context.js";
import { type FieldProblem, notFound } from "../core/http/errors.js";
import { formUse } from "../core/http/single-use.js";
import { publicFormLimit, spamChecks, stringFields } from "../core/http/public-form.js";
import { mailboxKey } from "../core/email-address.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { publicReport } from "../core/visibility.js";
import {
  confirmFollow,
  FOLLOW_CONFIRM,
  requestFollow,
  stopUpdates,
  unconfirmedFollow,
  unsubscribeTarget,
} from "./followers.js";
import { emailLinkPage } from "../core/web/link-page.js";
import { oneClickUnsubscribeRoutes } from "./unsubscribe.js";
import { FollowForm } from "./pages/follow.js";
import { isUniqueViolation, ReferenceParams } from "./reference.js";
import { isBanned } from "../moderation/index.js";

/** Confirmation mails per address and hour, over all reports (the form answers the same when the limit is hit). */
const PER_EMAIL = { name: "report-follow-email", max: 5, windowMs: 60 * 60_000 };

/** "Get updates by email" on public reports: the request, the confirmation page and the one-click unsubscribe. */
export async function followRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;
  const limiter = civic.limits;

  async function publicReference(reference: string) {
    const row = await db()
      .selectFrom("reports")
      .select(["reference", "title"])
      .where("reference", "=", reference)
      .where(publicReport)
      .executeTakeFirst();
    if (!row) throw notFound("There is no public report with this reference.");
    return row;
  }

  async function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    reference: string,
    email: string,
    problems: FieldProblem[],
  ) {
    const report = await publicReference(reference);
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title={`${problems.length > 0 ? "Error: " : ""}Get updates on report ${report.reference}`}>
        <p>
          <a href={`/reports/${report.reference}`}>Back to the report “{report.title}”</a>
        </p>
        <h1>Get updates on report {report.reference}</h1>
        <FollowForm reference={report.reference} csrfToken={ctx.csrfToken} email={email} problems={problems} />
      </Layout>,
      problems.length > 0 ? 400 : 200,
    );
  }

  function checkYourEmail(request: FastifyRequest, reply: FastifyReply, reference: string) {
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title="Check your email">
        <h1>Check your email</h1>
        <p class="lead">
          If this address does not get the updates on report {reference} yet, we have sent it a link. Open it and press
          “Confirm” to start receiving them.
        </p>
        <p>
          <a href={`/reports/${reference}`}>Back to the report</a>
        </p>
      </Layout>,
    );
  }

  app.get("/reports/:reference/follow", { schema: { hide: true, params: ReferenceParams } }, async (request, reply) =>
    renderForm(request, reply, request.params.reference, "", []),
  );

  app.post(
    "/reports/:reference/follow",
    { schema: { hide: true, params: ReferenceParams }, config: publicFormLimit(civic) },
    async (request, reply) => {
      const { reference } = await publicReference(request.params.reference);
      const f = stringFields(request.body);
      const typed = (f.email ?? "").slice(0, 254);
      const { token, problems } = spamChecks(civic, f);
      const submission = formUse(civic, token, "report-follow");
      if (await submission?.earlier()) return checkYourEmail(request, reply, reference);
      const email = normaliseEmail(typed);
      if (!email) problems.push({ field: "follow-email", message: "Enter an email address, like name@example.com" });
      if (problems.length > 0) return renderForm(request, reply, reference, typed, problems);
      const limited = await limiter.hit(PER_EMAIL, mailboxKey(email!));
      // A banned account or address gets the usual answer and no updates (moderation/ban-list.ts).
      const banned = await isBanned(db(), { accountId: request.viewer?.accountId ?? null, addresses: [email] });
      if (limited.allowed && !banned) {
        try {
          await requestFollow(civic, reference, email!, submission?.record);
        } catch (error) {
          // The same form sent twice at once: the first one counts, the second gets the same answer.
          if (!isUniqueViolation(error)) throw error;
        }
      }
      return checkYourEmail(request, reply, reference);
    },
  );

  emailLinkPage(app, {
    path: "/reports/updates/confirm",
    purpose: FOLLOW_CONFIRM,
    title: "Confirm the updates by email",
    gone: "This link has been used already or is not valid.",
    askAgain: { href: "/reports", label: "Find the report to follow it again" },
    async body(link, { token, csrfToken }) {
      const reference = await unconfirmedFollow(db(), link.ref);
      if (!reference) return null;
      return (
        <>
          <p>Press the button to get the public updates on report {reference} by email.</p>
          <ButtonForm action={`/reports/updates/confirm/${token}`} csrfToken={csrfToken} label="Confirm" />
        </>
      );
    },
  });

  app.post(
    "/reports/updates/confirm/:token",
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const reference = await confirmFollow(civic, request.params.token);
      return sendPage(
        reply,
        <Layout ctx={pageContext(request)} title={reference ? "You will get the updates" : "Link not valid"}>
          <h1>{reference ? "You will get the updates" : "This link is not valid"}</h1>
          {reference ? (
            <p>
              Thank you. Every update on <a href={`/reports/${reference}`}>report {reference}</a> will be emailed to
              you, with a link to stop them with one click.
            </p>
          ) : (
            <p>It has been used already or is not valid.</p>
          )}
        </Layout>,
        reference ? 200 : 410,
      );
    },
  );

  oneClickUnsubscribeRoutes(app, {
    path: "/reports/updates/unsubscribe",
    find: (token) => unsubscribeTarget(civic, token),
    gone: "This link is not valid, or the updates were stopped already.",
    async page(target) {
      const stopped = target.kind === "reporter" && target.stopped;
      return {
        title: `Stop the updates on report ${target.reference}`,
        stopped: stopped ? (
          <p>The updates on this report are stopped already. Nothing more will be sent.</p>
        ) : undefined,
        button: "Stop the updates",
      };
    },
    stop: (target) => stopUpdates(civic, target),
    done: (target) => ({
      title: "Updates stopped",
      heading: "The updates are stopped",
      body: (
        <p>
          Nothing more about <a href={`/reports/${target.reference}`}>report {target.reference}</a> will be sent to you.
        </p>
      ),
    }),
  });
}
