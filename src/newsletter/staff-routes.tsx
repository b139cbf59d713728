import type { FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import { recordAudit } from "../core/staff/audit.js";
import { type StaffScope, staffViewer } from "../core/staff/guard.js";
import { renderAdminPage } from "../core/staff/layout.js";
import type { StaffNavEntry } from "../core/staff/nav.js";
import type { DB } from "../core/db/schema.js";
import { ErrorSummary, Field, PostForm } from "../core/web/forms.js";
import { TextArea } from "../core/web/components.js";
import { notFound, type FieldProblem } from "../core/http/errors.js";
import { IdParams } from "../core/http/ids.js";
import { stringFields } from "../core/http/public-form.js";
import { enqueueMail } from "../core/mail/outbox.js";
import { IssueArticle } from "./pages.js";
import { issueMail, sendProgress, startSending, unsubscribeUrl } from "./service.js";

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [
  { label: "Newsletter", path: "/admin/newsletter", minimum: "moderator", order: 60 },
];

interface Draft {
  title: string;
  body: string;
}

function checkDraft(d: Draft): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (d.title.trim() === "") problems.push({ field: "title", message: "Enter a title" });
  else if (d.title.length > 150) problems.push({ field: "title", message: "Keep the title to 150 characters" });
  if (d.body.trim() === "") problems.push({ field: "body", message: "Write the newsletter" });
  else if (d.body.length > 50_000)
    problems.push({ field: "body", message: "Keep the newsletter to 50,000 characters" });
  return problems;
}

function audit(
  db: Kysely<DB>,
  actorId: string,
  action: string,
  issueId: number,
  details: Record<string, unknown>,
  at: string,
) {
  return recordAudit(db, { actorId, action, itemType: "newsletter_issue", itemId: issueId, details, at });
}

/** /admin/newsletter: staff write an issue, preview it, send a test to themselves and send it to every subscriber. */
export async function staffNewsletterRoutes(app: StaffScope): Promise<void> {
  const { civic } = app;
  const db = () => civic.database.db;
  await routes(app);
  async function routes(app: StaffScope) {
    async function loadIssue(id: number) {
      const issue = await db().selectFrom("newsletter_issues").selectAll().where("id", "=", id).executeTakeFirst();
      if (!issue) throw notFound("There is no newsletter issue at this address.");
      return issue;
    }

    async function renderIssue(
      request: FastifyRequest,
      reply: FastifyReply,
      id: number | null,
      draft: Draft,
      problems: FieldProblem[],
      options: { status?: number; preview?: boolean; notice?: string } = {},
    ) {
      const issue = id === null ? undefined : await loadIssue(id);
      const progress = issue && issue.status !== "draft" ? await sendProgress(db(), issue.id) : null;
      return renderAdminPage(
        request,
        reply,
        id === null ? "New newsletter" : `Newsletter: ${draft.title}`,
        (ctx) => (
          <>
            <p>
              <a href="/admin/newsletter">All issues</a>
            </p>
            <h1>{id === null ? "New newsletter" : "Newsletter issue"}</h1>
            {options.notice ? (
              <p role="status" class="notice notice-success">
                {options.notice}
              </p>
            ) : null}
            {progress ? (
              <section aria-labelledby="progress">
                <h2 id="progress">Sending</h2>
                <p>
                  {issue?.status === "sent" ? "Sent." : "Being sent."} Queued for {progress.queued} of{" "}
                  {Math.max(progress.confirmed, progress.queued)} subscribers; {progress.sent} delivered to the mail
                  server, {progress.failed} failed.
                </p>
              </section>
            ) : null}
            {issue && issue.status !== "draft" ? (
              <IssueArticle issue={issue} level={2} />
            ) : (
              <>
                <ErrorSummary problems={problems} />
                <PostForm
                  action={id === null ? "/admin/newsletter" : `/admin/newsletter/${id}`}
                  csrfToken={ctx.csrfToken}
                >
                  <Field id="title" label="Title" value={draft.title} problems={problems} maxLength={150} />
                  <TextArea
                    id="body"
                    label="Newsletter"
                    hint="Markdown: blank lines separate paragraphs."
                    value={draft.body}
                    problems={problems}
                    rows={16}
                  />
                  <button type="submit" name="action" value="save">
                    Save
                  </button>{" "}
                  <button type="submit" name="action" value="preview">
                    Preview
                  </button>
                  {id !== null ? (
                    <>
                      {" "}
                      <button type="submit" name="action" value="test">
                        Send a test to me
                      </button>{" "}
                      <button type="submit" name="action" value="send">
                        Send to all subscribers
                      </button>
                    </>
                  ) : null}
                </PostForm>
                {options.preview && problems.length === 0 ? (
                  <section aria-labelledby="preview" class="preview">
                    <h2 id="preview">Preview</h2>
                    <IssueArticle issue={{ ...draft, sent_at: null }} level={3} />
                  </section>
                ) : null}
              </>
            )}
          </>
        ),
        { status: options.status ?? (problems.length ? 400 : 200), hasErrors: problems.length > 0 },
      );
    }

    app.get("/newsletter", { schema: { hide: true } }, async (request, reply) => {
      const issues = await db().selectFrom("newsletter_issues").selectAll().orderBy("id", "desc").limit(200).execute();
      return renderAdminPage(request, reply, "Newsletter issues", () => (
        <>
          <h1>Newsletter issues</h1>
          <p>
            <a href="/admin/newsletter/new">Write a new issue</a>
          </p>
          <ul>
            {issues.map((i) => (
              <li key={i.id}>
                <a href={`/admin/newsletter/${i.id}`}>{i.title}</a> ({i.status})
              </li>
            ))}
          </ul>
        </>
      ));
    });

    app.get("/newsletter/new", { schema: { hide: true } }, async (request, reply) => {
      return renderIssue(request, reply, null, { title: "", body: "" }, []);
    });

    app.post("/newsletter", { schema: { hide: true } }, async (request, reply) => {
      const f = stringFields(request.body);
      const draft = { title: f.title ?? "", body: f.body ?? "" };
      const problems = checkDraft(draft);
      if (problems.length > 0 || f.action === "preview") {
        return renderIssue(request, reply, null, draft, problems, { preview: true });
      }
      const at = civic.now().toISOString();
      const row = await db()
        .transaction()
        .execute(async (tx) => {
          const made = await tx
            .insertInto("newsletter_issues")
            .values({ ...draft, status: "draft", created_at: at, updated_at: at, send_started_at: null, sent_at: null })
            .returning("id")
            .executeTakeFirstOrThrow();
          await audit(tx, staffViewer(request).accountId, "newsletter.create", made.id, { title: draft.title }, at);
          return made;
        });
      return reply.redirect(`/admin/newsletter/${row.id}`, 303);
    });

    app.get("/newsletter/:id", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
      const issue = await loadIssue(request.params.id);
      return renderIssue(request, reply, issue.id, issue, []);
    });

    app.post("/newsletter/:id", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
      const viewer = staffViewer(request);
      const issue = await loadIssue(request.params.id);
      const f = stringFields(request.body);
      if (issue.status !== "draft") {
        // A second press of "send" (or a stale form) changes nothing.
        return renderIssue(request, reply, issue.id, issue, [], { notice: "This issue is already being sent." });
      }
      const draft = { title: f.title ?? "", body: f.body ?? "" };
      const problems = checkDraft(draft);
      if (problems.length > 0) return renderIssue(request, reply, issue.id, draft, problems);
      const at = civic.now().toISOString();
      if (draft.title !== issue.title || draft.body !== issue.body) {
        await db()
          .transaction()
          .execute(async (tx) => {
            await tx
              .updateTable("newsletter_issues")
              .set({ ...draft, updated_at: at })
              .where("id", "=", issue.id)
              .where("status", "=", "draft")
              .execute();
            await audit(tx, viewer.accountId, "newsletter.edit", issue.id, { title: draft.title }, at);
          });
      }
      if (f.action === "preview") return renderIssue(request, reply, issue.id, draft, [], { preview: true });
      if (f.action === "test") {
        const account = await db()
          .selectFrom("accounts")
          .select("email")
          .where("id", "=", viewer.accountId)
          .executeTakeFirst();
        const sub = account
          ? await db()
              .selectFrom("newsletter_subscribers")
              .selectAll()
              .where("email", "=", account.email)
              .executeTakeFirst()
          : undefined;
        if (account) {
          const unsubscribe = sub
            ? unsubscribeUrl(civic, sub.id, sub.unsubscribe_salt)
            : `${civic.site.baseUrl}/newsletter`;
          const mail = issueMail(civic, draft, account.email, unsubscribe);
          await enqueueMail(db(), { ...mail, kind: "newsletter-test", subject: `[Test] ${mail.subject}` }, civic.now());
          await audit(db(), viewer.accountId, "newsletter.test", issue.id, {}, at);
        }
        return renderIssue(request, reply, issue.id, draft, [], {
          notice: "A test has been sent to your email address.",
        });
      }
      if (f.action === "send") {
        if (await startSending(civic, issue.id)) {
          await audit(db(), viewer.accountId, "newsletter.send", issue.id, {}, at);
        }
        return reply.redirect(`/admin/newsletter/${issue.id}`, 303);
      }
      return renderIssue(request, reply, issue.id, draft, [], { notice: "Saved." });
    });
  }
}
