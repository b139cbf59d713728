import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { pageContext } from "../core/context.js";
import { mailboxKey, normaliseEmail } from "../core/email-address.js";
import { type FieldProblem, isAppError, notFound } from "../core/http/errors.js";
import { publicFormLimit, spamChecks, stringFields } from "../core/http/public-form.js";
import { formUse } from "../core/http/single-use.js";
import { type ReceivedFile, withUploads } from "../core/media/uploads.js";
import { TokenParams } from "../core/tokens.js";
import { isPublic } from "../core/visibility.js";
import { ButtonForm } from "../core/web/forms.js";
import { Layout } from "../core/web/layout.js";
import { emailLinkPage } from "../core/web/link-page.js";
import { sendPage } from "../core/web/render.js";
import { isBanned } from "../moderation/index.js";
import { ResidentUpdateForm } from "./pages/resident-update.js";
import { isUniqueViolation, ReferenceParams } from "./reference.js";
import { photoTooLarge } from "./submit.js";
import {
  addSignedInUpdate,
  confirmEmailUpdate,
  pendingUpdate,
  requestEmailUpdate,
  residentUpdateText,
  storeUpdatePhoto,
  UPDATE_CONFIRM,
} from "./resident-updates.js";

/** Confirmation mails of updates per address and hour, over all reports (the form answers the same when hit). */
const PER_EMAIL = { name: "report-update-email", max: 5, windowMs: 60 * 60_000 };

/** "Add an update" on public reports (resident-updates.ts): the form, its page, and the emailed link's page. */
export async function residentUpdateRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;
  const maxPhotoMb = Math.round(civic.config.uploads.maxPhotoBytes / 1048576);

  /** The report, or a page saying why it cannot be updated (hidden or removed: 410; unknown: 404). */
  async function findReport(reference: string) {
    const row = await db()
      .selectFrom("reports")
      .select(["reference", "title", "visibility"])
      .where("reference", "=", reference)
      .executeTakeFirst();
    if (!row) throw notFound("There is no public report with this reference.");
    return row;
  }

  function notShown(request: FastifyRequest, reply: FastifyReply, reference: string) {
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title="This report is no longer shown">
        <h1>This report is no longer shown</h1>
        <p>
          Report {reference} was hidden or removed by a moderator, so it cannot take updates. Nothing was published.
        </p>
        <p>
          <a href="/reports">See the other reports</a>
        </p>
      </Layout>,
      410,
    );
  }

  async function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    reference: string,
    values: { note: string; email: string },
    problems: FieldProblem[],
  ) {
    const report = await findReport(reference);
    if (!isPublic(report.visibility)) return notShown(request, reply, report.reference);
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title={`${problems.length > 0 ? "Error: " : ""}Add an update to report ${report.reference}`}>
        <p>
          <a href={`/reports/${report.reference}`}>Back to the report “{report.title}”</a>
        </p>
        <h1>Add an update to report {report.reference}</h1>
        <ResidentUpdateForm
          reference={report.reference}
          csrfToken={ctx.csrfToken}
          signedIn={ctx.signedIn === true}
          note={values.note}
          email={values.email}
          problems={problems}
          maxPhotoMb={maxPhotoMb}
          heading={false}
        />
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
          We have sent a link to the address you gave. Your update on report {reference} is published when you open it
          and press “Publish the update”. Until then it is not shown, and it is deleted if the link is never used.
        </p>
        <p>
          <a href={`/reports/${reference}`}>Back to the report</a>
        </p>
      </Layout>,
    );
  }

  app.get("/reports/:reference/update", { schema: { hide: true, params: ReferenceParams } }, async (request, reply) =>
    renderForm(request, reply, request.params.reference, { note: "", email: "" }, []),
  );

  app.post(
    "/reports/:reference/update",
    { schema: { hide: true, params: ReferenceParams }, config: publicFormLimit(civic) },
    async (request, reply) => {
      const { reference } = request.params;
      try {
        return await withUploads(
          request,
          (field) => field === "update-photo",
          (files) => postUpdate(request, reply, reference, files),
        );
      } catch (error) {
        // A photo over the limit is stopped while it arrives: the form again, with the report form's message.
        if (!isAppError(error) || error.code !== "payload_too_large") throw error;
        const f = stringFields(request.body);
        const values = { note: (f["update-note"] ?? "").slice(0, 20_000), email: (f.email ?? "").slice(0, 254) };
        const message = photoTooLarge("The photo", civic.config.uploads.maxPhotoBytes);
        return renderForm(request, reply, reference, values, [{ field: "update-photo", message }]);
      }
    },
  );

  /** POST /reports/:reference/update with its photo, if any, in the upload store (removed when this returns). */
  async function postUpdate(request: FastifyRequest, reply: FastifyReply, reference: string, files: ReceivedFile[]) {
    const report = await findReport(reference);
    if (!isPublic(report.visibility)) return notShown(request, reply, report.reference);
    const f = stringFields(request.body);
    // Long enough to say how long it was; the form's own limit is far below.
    const typedNote = (f["update-note"] ?? "").slice(0, 100_000);
    const typedEmail = (f.email ?? "").slice(0, 254);
    const { token, problems } = spamChecks(civic, f);
    const submission = formUse(civic, token, "report-update");
    const earlier = await submission?.earlier();
    if (earlier !== undefined) {
      // A replayed form: the first answer again, nothing new.
      if (earlier.startsWith("request-")) return checkYourEmail(request, reply, reference);
      return reply.redirect(`/reports/${reference}#update-${earlier}`, 303);
    }
    const text = residentUpdateText(typedNote);
    if ("problem" in text) problems.push({ field: "update-note", message: text.problem });
    const accountId = request.viewer?.accountId ?? null;
    const email = accountId ? null : normaliseEmail(typedEmail);
    if (!accountId && !email) {
      problems.push({ field: "update-email", message: "Enter an email address, like name@example.com" });
    }
    const values = { note: typedNote.slice(0, 20_000), email: typedEmail };
    if (problems.length > 0 || !("note" in text)) return renderForm(request, reply, reference, values, problems);
    // The optional photo, through the report form's pipeline (its limits and messages), once the rest is right.
    const upload = files.find((file) => file.size > 0);
    const photo = await storeUpdatePhoto(civic, upload);
    if ("problem" in photo) {
      return renderForm(request, reply, reference, values, [{ field: "update-photo", message: photo.problem }]);
    }
    try {
      if (accountId) {
        const done = await addSignedInUpdate(
          civic,
          { reference, accountId, note: text.note, photo: photo.photo },
          submission?.record,
        );
        if (done.kind === "not-public") return notShown(request, reply, reference);
        return reply.redirect(
          done.kind === "published" ? `/reports/${reference}#update-${done.updateId}` : `/reports/${reference}`,
          303,
        );
      }
      const limited = await civic.limits.hit(PER_EMAIL, mailboxKey(email!));
      // A banned address gets the usual answer and nothing is kept (moderation/ban-list.ts).
      const banned = await isBanned(db(), { accountId: null, addresses: [email] });
      if (limited.allowed && !banned) {
        const kept = await requestEmailUpdate(
          civic,
          { reference, email: email!, note: text.note, photo: photo.photo },
          submission?.record,
        );
        if (!kept) return notShown(request, reply, reference);
      }
    } catch (error) {
      // The same form sent twice at once: the first one counts, the second gets its answer.
      if (!isUniqueViolation(error)) throw error;
      const first = await submission?.earlier();
      if (first && !first.startsWith("request-")) return reply.redirect(`/reports/${reference}#update-${first}`, 303);
    }
    return checkYourEmail(request, reply, reference);
  }

  emailLinkPage(app, {
    path: "/reports/updates/publish",
    purpose: UPDATE_CONFIRM,
    title: "Publish your update",
    gone: "This link has been used already or is not valid.",
    askAgain: { href: "/reports", label: "Find the report to write your update again" },
    async body(link, { token, csrfToken }) {
      const pending = await pendingUpdate(db(), link.ref);
      if (!pending) return null;
      if (!isPublic(pending.visibility)) {
        return (
          <p>
            Report {pending.reference} was hidden or removed by a moderator since you wrote your update, so it cannot be
            published.
          </p>
        );
      }
      return (
        <>
          <p>
            Press the button to publish your update on report {pending.reference}, “{pending.title}”. It will be shown
            on the report's page as “Update from a resident” (or “from the reporter”), without your address:
          </p>
          <blockquote class="update-preview">
            {pending.note.split(/\n{2,}/).map((para, i) => (
              <p key={i}>{para}</p>
            ))}
          </blockquote>
          {pending.photo_hash ? <p>With the photo you chose, published with it.</p> : null}
          <ButtonForm action={`/reports/updates/publish/${token}`} csrfToken={csrfToken} label="Publish the update" />
        </>
      );
    },
  });

  app.post(
    "/reports/updates/publish/:token",
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const done = await confirmEmailUpdate(civic, request.params.token);
      if (done.kind === "not-public") return notShown(request, reply, done.reference);
      const ok = done.kind === "published";
      return sendPage(
        reply,
        <Layout ctx={pageContext(request)} title={ok ? "Thank you for your update" : "Link not valid"}>
          <h1>{ok ? "Thank you for your update" : "This link is not valid"}</h1>
          {ok ? (
            <p>
              <a href={`/reports/${done.reference}${done.updateId === null ? "" : `#update-${done.updateId}`}`}>
                Back to report {done.reference}
              </a>
            </p>
          ) : (
            <p>It has been used already or is not valid. An update is published once only.</p>
          )}
        </Layout>,
        ok ? 200 : 410,
      );
    },
  );
}
