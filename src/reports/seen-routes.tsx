import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { pageContext } from "../core/context.js";
import { mailboxKey, normaliseEmail } from "../core/email-address.js";
import { type FieldProblem, notFound } from "../core/http/errors.js";
import { publicFormLimit, spamChecks, stringFields } from "../core/http/public-form.js";
import { formUse } from "../core/http/single-use.js";
import { TokenParams } from "../core/tokens.js";
import { isPublic } from "../core/visibility.js";
import { ButtonForm } from "../core/web/forms.js";
import { Layout } from "../core/web/layout.js";
import { emailLinkPage } from "../core/web/link-page.js";
import { sendPage } from "../core/web/render.js";
import { isBanned, ModeratedGone } from "../moderation/index.js";
import { SeenForm, seenWords } from "./pages/seen.js";
import { isUniqueViolation, ReferenceParams } from "./reference.js";
import {
  accountSeer,
  clientSeer,
  confirmSeen,
  markSeen,
  requestSeenByEmail,
  SEEN_CONFIRM,
  seenCount,
  seenLinkReport,
} from "./seen.js";

/** Confirmation mails per address and hour, over all reports (the form answers the same when the limit is hit). */
const PER_EMAIL = { name: "report-seen-email", max: 5, windowMs: 60 * 60_000 };

/** "I have seen this too" (reports/seen.ts): the form's post, its page with errors, and the emailed confirmation. */
export async function seenRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;

  /** A public report by reference, or the page that says why it cannot be marked (a hidden one: 410, unknown: 404). */
  async function publicReference(reference: string, request: FastifyRequest, reply: FastifyReply) {
    const row = await db()
      .selectFrom("reports")
      .select(["id", "reference", "title", "visibility"])
      .where("reference", "=", reference)
      .executeTakeFirst();
    if (!row) throw notFound("There is no public report with this reference.");
    if (!isPublic(row.visibility)) {
      await sendPage(
        reply,
        <Layout ctx={pageContext(request)} title="This report is no longer shown">
          <ModeratedGone reference={row.reference} removed={row.visibility === "removed"} />
        </Layout>,
        410,
      );
      return null;
    }
    return row;
  }

  async function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    report: { id: number; reference: string; title: string },
    email: string,
    problems: FieldProblem[],
  ) {
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title={`${problems.length > 0 ? "Error: " : ""}Seen report ${report.reference} too?`}>
        <p>
          <a href={`/reports/${report.reference}`}>Back to the report “{report.title}”</a>
        </p>
        <h1>Report {report.reference}</h1>
        <SeenForm
          reference={report.reference}
          csrfToken={ctx.csrfToken}
          count={await seenCount(db(), report.id)}
          signedIn={request.viewer !== null}
          email={email}
          problems={problems}
        />
      </Layout>,
      problems.length > 0 ? 400 : 200,
    );
  }

  async function thanks(
    request: FastifyRequest,
    reply: FastifyReply,
    report: { id: number; reference: string },
    created: boolean,
  ) {
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title="Thank you">
        <h1>Thank you</h1>
        <p class="lead">
          {created ? "We have added you to the count." : "You had said so already: you are counted once."}{" "}
          {seenWords(await seenCount(db(), report.id))}
        </p>
        <p>
          <a href={`/reports/${report.reference}`}>Back to report {report.reference}</a>
        </p>
      </Layout>,
    );
  }

  function checkYourEmail(request: FastifyRequest, reply: FastifyReply, reference: string) {
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title="Check your email">
        <h1>Check your email</h1>
        <p class="lead">
          If this address has not said so yet, we have sent it a link. Open it and press “Confirm” to be counted as
          having seen report {reference} too.
        </p>
        <p>
          <a href={`/reports/${reference}`}>Back to the report</a>
        </p>
      </Layout>,
    );
  }

  app.get("/reports/:reference/seen", { schema: { hide: true, params: ReferenceParams } }, async (request, reply) => {
    const report = await publicReference(request.params.reference, request, reply);
    return report ? renderForm(request, reply, report, "", []) : reply;
  });

  app.post(
    "/reports/:reference/seen",
    { schema: { hide: true, params: ReferenceParams }, config: publicFormLimit(civic) },
    async (request, reply) => {
      const report = await publicReference(request.params.reference, request, reply);
      if (!report) return reply;
      const f = stringFields(request.body);
      const typed = (f.email ?? "").slice(0, 254);
      const { token, problems } = spamChecks(civic, f);
      const submission = formUse(civic, token, "report-seen");
      const viewer = request.viewer;
      // A replayed form (a re-POST, a double click) is answered as the first one was, and counts nothing more.
      const earlier = await submission?.earlier();
      if (earlier !== undefined) {
        return earlier.startsWith("email:")
          ? checkYourEmail(request, reply, report.reference)
          : thanks(request, reply, report, false);
      }
      const email = viewer || typed.trim() === "" ? null : normaliseEmail(typed);
      if (!viewer && typed.trim() !== "" && !email) {
        problems.push({
          field: "seen-email",
          message: "Enter an email address, like name@example.com, or leave it empty",
        });
      }
      if (problems.length > 0) return renderForm(request, reply, report, viewer ? "" : typed, problems);
      // A banned account or address gets the usual answer and is not counted (moderation/ban-list.ts).
      const banned = await isBanned(db(), {
        accountId: viewer?.accountId ?? null,
        addresses: email ? [email] : [],
      });
      try {
        if (email) {
          const limited = await civic.limits.hit(PER_EMAIL, mailboxKey(email));
          if (limited.allowed && !banned) {
            await requestSeenByEmail(civic, report, email, async (tx) =>
              submission?.record(tx, `email:${report.reference}`),
            );
          }
          return checkYourEmail(request, reply, report.reference);
        }
        if (banned) return thanks(request, reply, report, true);
        const who = viewer ? accountSeer(viewer.accountId) : clientSeer(civic, report.id, request.ip, civic.now());
        const created = await markSeen(civic, report.id, who, submission?.record);
        return thanks(request, reply, report, created);
      } catch (error) {
        // The same form sent twice at once: the first one counts, the second gets the same answer.
        if (!isUniqueViolation(error)) throw error;
        return email ? checkYourEmail(request, reply, report.reference) : thanks(request, reply, report, false);
      }
    },
  );

  emailLinkPage(app, {
    path: "/reports/seen/confirm",
    purpose: SEEN_CONFIRM,
    title: "Confirm you have seen this too",
    gone: "This link has been used already, is not valid, or its report is no longer shown.",
    askAgain: { href: "/reports", label: "Find the report to say so again" },
    async body(link, { token, csrfToken }) {
      const report = await seenLinkReport(db(), link.ref);
      if (!report) return null;
      return (
        <>
          <p>
            Press the button to be counted once as having seen the problem of report {report.reference} (“
            {report.title}”) too. Your address is never shown.
          </p>
          <ButtonForm action={`/reports/seen/confirm/${token}`} csrfToken={csrfToken} label="Confirm" />
        </>
      );
    },
  });

  app.post("/reports/seen/confirm/:token", { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const reference = await confirmSeen(civic, request.params.token);
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title={reference ? "Thank you" : "Link not valid"}>
        <h1>{reference ? "Thank you" : "This link is not valid"}</h1>
        {reference ? (
          <p>
            You are counted as having seen <a href={`/reports/${reference}`}>report {reference}</a> too.
          </p>
        ) : (
          <p>It has been used already, is not valid, or its report is no longer shown.</p>
        )}
      </Layout>,
      reference ? 200 : 410,
    );
  });
}
