import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { pageContext } from "../core/context.js";
import { AppError, type FieldProblem } from "../core/http/errors.js";
import { stringFields } from "../core/http/public-form.js";
import { openLink } from "../core/links.js";
import { ErrorSummary, HintAndError, PostForm, describedBy } from "../core/web/forms.js";
import { Layout } from "../core/web/layout.js";
import { emailLinkPage } from "../core/web/link-page.js";
import { sendPage } from "../core/web/render.js";
import { STATUS_LABELS } from "./model.js";
import {
  answerQuestionnaire,
  type OpenQuestionnaire,
  openQuestionnaire,
  QUESTIONNAIRE_LINK,
  type QuestionnaireAnswer,
  questionnairePath,
} from "./questionnaire.js";

/** The longest comment with an answer (the public update also says what the answer was). */
export const MAX_COMMENT_LENGTH = 1000;

const ANSWERS: Record<QuestionnaireAnswer, { title: string; button: string; other: string }> = {
  yes: { title: "Is it fixed? Yes, fixed", button: "Yes, fixed", other: "No, still a problem" },
  no: { title: "Is it fixed? No, still a problem", button: "No, still a problem", other: "Yes, fixed" },
};

const GONE = "This link has been used already, has expired or is not valid.";

const AnswerParams = Type.Object({
  answer: Type.Union([Type.Literal("yes"), Type.Literal("no")]),
  token: Type.String({ maxLength: 200 }),
});

/** What pressing the button does, the optional comment and the button. */
function AnswerForm(p: {
  answer: QuestionnaireAnswer;
  token: string;
  csrfToken: string;
  q: OpenQuestionnaire;
  comment: string;
  problems: FieldProblem[];
}) {
  const a = ANSWERS[p.answer];
  const error = p.problems.find((x) => x.field === "questionnaire-comment")?.message;
  const other: QuestionnaireAnswer = p.answer === "yes" ? "no" : "yes";
  return (
    <>
      <ErrorSummary problems={p.problems} />
      <p>
        Your report <a href={`/reports/${p.q.reference}`}>{p.q.reference}</a>: “{p.q.title}”
      </p>
      <dl>
        <dt>Where</dt>
        <dd>{p.q.where ?? "Not given"}</dd>
        <dt>Status now</dt>
        <dd>{STATUS_LABELS[p.q.status]}</dd>
      </dl>
      <p>
        {p.answer === "yes"
          ? "Press “Yes, fixed” to tell us the problem is fixed. The report will be marked fixed."
          : "Press “No, still a problem” to tell us the problem is not fixed. A report marked fixed or closed is reopened."}{" "}
        Your answer is shown on the report's public page, never your name or address.
      </p>
      <PostForm action={questionnairePath(p.answer, p.token)} csrfToken={p.csrfToken}>
        <div class={`field${error ? " has-error" : ""}`}>
          <label for="questionnaire-comment">
            Comment <span class="muted">(optional)</span>
          </label>
          <HintAndError
            id="questionnaire-comment"
            hint={`Published with your answer, at most ${MAX_COMMENT_LENGTH} characters. Please do not include personal details.`}
            error={error}
          />
          <textarea
            id="questionnaire-comment"
            name="comment"
            rows={4}
            maxLength={MAX_COMMENT_LENGTH}
            value={p.comment}
            aria-describedby={describedBy("questionnaire-comment-hint", error && "questionnaire-comment-error")}
            aria-invalid={error ? "true" : undefined}
          />
        </div>
        <button type="submit" class="button">
          {a.button}
        </button>
      </PostForm>
      <p>
        <a href={questionnairePath(other, p.token)}>Answer “{a.other}” instead</a>
      </p>
    </>
  );
}

/** "Is it fixed?": the pages the questionnaire mail's links open, and their one button (a POST). */
export async function questionnaireRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;

  for (const answer of ["yes", "no"] as const) {
    emailLinkPage(app, {
      path: `/reports/fixed/${answer}`,
      purpose: QUESTIONNAIRE_LINK,
      title: ANSWERS[answer].title,
      gone: GONE,
      askAgain: { href: "/reports", label: "See the reports" },
      async body(link, { token, csrfToken }) {
        const q = await openQuestionnaire(db(), link);
        if (!q) return null;
        return <AnswerForm answer={answer} token={token} csrfToken={csrfToken} q={q} comment="" problems={[]} />;
      },
    });
  }

  function message(request: FastifyRequest, reply: FastifyReply, title: string, text: string, status: number) {
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title={title}>
        <h1>{title}</h1>
        <p>{text}</p>
        <p>
          <a href="/reports">See the reports</a>
        </p>
      </Layout>,
      status,
    );
  }

  /** The page again with the comment's problem; the link stays unused. */
  async function again(
    request: FastifyRequest,
    reply: FastifyReply,
    answer: QuestionnaireAnswer,
    token: string,
    comment: string,
    problems: FieldProblem[],
  ) {
    const link = await openLink(db(), QUESTIONNAIRE_LINK, token, civic.now());
    const q = link ? await openQuestionnaire(db(), link) : null;
    if (!q) return message(request, reply, "Link not valid", GONE, 410);
    const ctx = pageContext(request);
    reply.header("referrer-policy", "same-origin");
    return sendPage(
      reply,
      <Layout ctx={ctx} title={`Error: ${ANSWERS[answer].title}`}>
        <h1>{ANSWERS[answer].title}</h1>
        <AnswerForm
          answer={answer}
          token={token}
          csrfToken={ctx.csrfToken}
          q={q}
          comment={comment}
          problems={problems}
        />
      </Layout>,
      400,
    );
  }

  app.post(
    "/reports/fixed/:answer/:token",
    { schema: { hide: true, params: AnswerParams } },
    async (request, reply) => {
      const { answer, token } = request.params;
      const typed = stringFields(request.body).comment;
      const body = request.body;
      if (typed === undefined && body !== null && typeof body === "object" && "comment" in body) {
        const problem = { field: "questionnaire-comment", message: "Enter the comment as plain text." };
        return again(request, reply, answer, token, "", [problem]);
      }
      const comment = (typed ?? "").replace(/\r\n?/g, "\n").trim();
      if (comment.length > MAX_COMMENT_LENGTH) {
        const problem = {
          field: "questionnaire-comment",
          message: `The comment must be at most ${MAX_COMMENT_LENGTH} characters (it has ${comment.length}).`,
        };
        return again(request, reply, answer, token, comment.slice(0, MAX_COMMENT_LENGTH), [problem]);
      }
      let done: Awaited<ReturnType<typeof answerQuestionnaire>>;
      try {
        done = await answerQuestionnaire(civic, token, answer, comment);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.code === "not_found") {
          return message(request, reply, "Report not available", "This report is no longer shown to the public.", 404);
        }
        if (error.code === "validation_failed") {
          const text = error.fields[0]?.message ?? error.message;
          return again(request, reply, answer, token, comment, [{ field: "questionnaire-comment", message: text }]);
        }
        if (error.code === "gone") return message(request, reply, "Link not valid", GONE, 410);
        throw error;
      }
      if (!done) return message(request, reply, "Link not valid", GONE, 410);
      const title = "Thank you for your answer";
      return sendPage(
        reply,
        <Layout ctx={pageContext(request)} title={title}>
          <h1>{title}</h1>
          <p>
            {answer === "yes" ? "You told us the problem is fixed." : "You told us the problem is still there."} Your
            answer is on the public page of <a href={`/reports/${done.reference}`}>report {done.reference}</a>, whose
            status is now “{STATUS_LABELS[done.status]}”.
          </p>
        </Layout>,
      );
    },
  );
}
