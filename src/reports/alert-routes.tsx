import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { accountAddress } from "../accounts/index.js";
import { pageContext } from "../core/context.js";
import { mailboxKey, normaliseEmail } from "../core/email-address.js";
import type { FieldProblem } from "../core/http/errors.js";
import { publicFormLimit, spamChecks, stringFields } from "../core/http/public-form.js";
import { formUse } from "../core/http/single-use.js";
import { MAIL_CAP_NOTICE } from "../core/mail/policy.js";
import { TokenParams } from "../core/tokens.js";
import { ButtonForm } from "../core/web/forms.js";
import { Layout } from "../core/web/layout.js";
import { emailLinkPage } from "../core/web/link-page.js";
import { oneClickUnsubscribeRoutes } from "./unsubscribe.js";
import { sendPage } from "../core/web/render.js";
import { isBanned } from "../moderation/index.js";
import {
  ALERT_CONFIRM,
  ALERT_RADII,
  type AlertChoice,
  alertNames,
  alertOfToken,
  confirmAlert,
  describeAlert,
  requestAlert,
  stopAlert,
  unconfirmedAlert,
} from "./alerts.js";
import { AlertForm } from "./pages/alerts.js";
import { findPlace, loadGazetteer } from "./places.js";
import { isUniqueViolation } from "./reference.js";
import { publicCategories } from "./repository.js";

/** Confirmation mails per address and hour over all alert requests (the form answers the same beyond it). */
const PER_EMAIL = { name: "report-alert-email", max: 5, windowMs: 60 * 60_000 };

/** What a link may preselect on the form (e.g. "Email me about new reports here" on a report page). */
const Prefill = Type.Object({
  scope: Type.Optional(Type.Union(["near", "street", "category", "village"].map((s) => Type.Literal(s)))),
  place: Type.Optional(Type.String({ maxLength: 100 })),
  street: Type.Optional(Type.String({ maxLength: 100 })),
  category: Type.Optional(Type.String({ maxLength: 100 })),
});

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** /alerts: "Email me about new reports", its confirmation page and the one-click unsubscribe (RFC 8058). */
export async function alertRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;

  async function choices() {
    const [gazetteer, categories] = await Promise.all([loadGazetteer(db()), publicCategories(db())]);
    return {
      placeNames: [...new Set(gazetteer.map((p) => p.name))],
      streets: gazetteer.filter((p) => p.kind === "street").map((p) => ({ id: p.id, name: p.name })),
      categories,
    };
  }

  async function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    values: Record<string, string>,
    problems: FieldProblem[],
  ) {
    const ctx = pageContext(request);
    const toAccount = request.viewer ? (await accountAddress(db(), request.viewer.accountId)) !== null : false;
    return sendPage(
      reply,
      <Layout
        ctx={ctx}
        title={`${problems.length > 0 ? "Error: " : ""}Email me about new reports`}
        description="Get an email when someone reports a problem near a place, on a street or in a category."
      >
        <p>
          <a href="/reports">Back to the reports</a>
        </p>
        <h1>Email me about new reports</h1>
        <p class="lead">
          Hear about new reports near a place, on your street, in a category or anywhere in the village, by email at
          once or once a day. Every email has a link to stop it.
        </p>
        <AlertForm
          csrfToken={ctx.csrfToken}
          toAccount={toAccount}
          {...await choices()}
          values={values}
          problems={problems}
        />
        <p class="hint">{MAIL_CAP_NOTICE}</p>
        <h2>Prefer a feed reader?</h2>
        <p>
          The same choices are Atom feeds: add <code>near</code> (a street or landmark) with <code>radius</code> (
          {ALERT_RADII.join(", ")} metres), <code>street</code> or <code>category</code> to{" "}
          <a href="/reports.atom">the reports feed</a>, for example{" "}
          <code>/reports.atom?near=War+memorial&amp;radius=500</code>.
        </p>
      </Layout>,
      problems.length > 0 ? 400 : 200,
    );
  }

  /** The choice the form describes, or the problems with it. */
  async function readChoice(
    f: Record<string, string>,
  ): Promise<{ choice: AlertChoice | null; problems: FieldProblem[] }> {
    const problems: FieldProblem[] = [];
    const scope = f.scope ?? "";
    if (scope === "village") return { choice: { scope }, problems };
    if (scope === "near") {
      const typed = (f.place ?? "").trim();
      const radius = /^\d{1,5}$/.test(f.radius ?? "") ? Number(f.radius) : NaN;
      if (!(ALERT_RADII as readonly number[]).includes(radius)) {
        problems.push({ field: "alert-radius", message: "Choose one of the distances offered" });
      }
      let placeId: string | null = null;
      if (typed === "" || typed.length > 100 || CONTROL.test(typed)) {
        problems.push({ field: "alert-place", message: "Enter a street or landmark, like War memorial" });
      } else {
        const found = await findPlace(db(), typed);
        if (found.place) placeId = found.place.id;
        else {
          const hint = found.suggestions.length > 0 ? `: did you mean ${found.suggestions.join(", ")}?` : "";
          problems.push({ field: "alert-place", message: `We do not know the place “${typed}”${hint}` });
        }
      }
      return { choice: placeId && problems.length === 0 ? { scope, placeId, radiusM: radius } : null, problems };
    }
    if (scope === "street") {
      const street = (f.street ?? "").slice(0, 100);
      const row = await db()
        .selectFrom("places")
        .select("id")
        .where("id", "=", street)
        .where("kind", "=", "street")
        .executeTakeFirst();
      if (row) return { choice: { scope, placeId: row.id }, problems };
      problems.push({ field: "alert-street", message: "Choose a street" });
      return { choice: null, problems };
    }
    if (scope === "category") {
      const code = (f.category ?? "").slice(0, 100);
      if ((await publicCategories(db())).some((c) => c.code === code)) {
        return { choice: { scope, categoryCode: code }, problems };
      }
      problems.push({ field: "alert-category", message: "Choose a category" });
      return { choice: null, problems };
    }
    problems.push({ field: "alert-scope", message: "Choose which new reports to hear about" });
    return { choice: null, problems };
  }

  function checkYourEmail(request: FastifyRequest, reply: FastifyReply, proven: boolean) {
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title={proven ? "Your alert is on" : "Check your email"}>
        <h1>{proven ? "Your alert is on" : "Check your email"}</h1>
        <p class="lead">
          {proven
            ? "New reports that match it will be emailed to your account’s address, each email with a link to stop the alert."
            : "If this address does not have this alert yet, we have sent it a link. Open it and press “Confirm” to start the alert."}
        </p>
        <p>
          <a href="/reports">Back to the reports</a>
        </p>
      </Layout>,
    );
  }

  app.get("/alerts", { schema: { hide: true, querystring: Prefill } }, async (request, reply) => {
    const q = request.query;
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(q)) if (typeof v === "string" && !CONTROL.test(v)) values[k] = v;
    return renderForm(request, reply, values, []);
  });

  app.post("/alerts", { schema: { hide: true }, config: publicFormLimit(civic) }, async (request, reply) => {
    const f = stringFields(request.body);
    const values: Record<string, string> = {};
    for (const k of ["scope", "place", "radius", "street", "category", "frequency", "email"]) {
      values[k] = (f[k] ?? "").slice(0, k === "email" ? 254 : 100);
    }
    const { token, problems } = spamChecks(civic, f);
    const submission = formUse(civic, token, "report-alert");
    const proven = request.viewer !== null && request.viewer !== undefined;
    if (await submission?.earlier()) return checkYourEmail(request, reply, proven);
    const read = await readChoice(values);
    problems.push(...read.problems);
    const frequency = values.frequency;
    if (frequency !== "immediate" && frequency !== "daily") {
      problems.push({ field: "alert-frequency", message: "Choose how often" });
    }
    // Signed in, the alert is the account's, under the account's own address (accounts/prefill.ts).
    const email = request.viewer
      ? await accountAddress(db(), request.viewer.accountId)
      : CONTROL.test(values.email!)
        ? null
        : normaliseEmail(values.email!);
    if (!email) problems.push({ field: "alert-email", message: "Enter an email address, like name@example.com" });
    if (problems.length > 0 || !read.choice || !email || (frequency !== "immediate" && frequency !== "daily")) {
      return renderForm(request, reply, values, problems);
    }
    const limited = await civic.limits.hit(PER_EMAIL, mailboxKey(email));
    // A banned account or address gets the usual answer and no alert (moderation/ban-list.ts).
    const banned = await isBanned(db(), { accountId: request.viewer?.accountId ?? null, addresses: [email] });
    if ((limited.allowed || proven) && !banned) {
      try {
        await requestAlert(
          civic,
          { email, choice: read.choice, frequency },
          { recordSubmission: submission?.record, proven },
        );
      } catch (error) {
        // The same form sent twice at once: the first one counts, the second gets the same answer.
        if (!isUniqueViolation(error)) throw error;
      }
    }
    return checkYourEmail(request, reply, proven);
  });

  emailLinkPage(app, {
    path: "/alerts/confirm",
    purpose: ALERT_CONFIRM,
    title: "Confirm your alert",
    gone: "This link has been used already or is not valid.",
    askAgain: { href: "/alerts", label: "Ask for the alert again" },
    async body(link, { token, csrfToken }) {
      const alert = await unconfirmedAlert(db(), link.ref);
      if (!alert) return null;
      return (
        <>
          <p>
            Press the button to get an email about new reports ({alert.frequency === "daily" ? "once a day" : "at once"}
            ): {describeAlert(alert, await alertNames(db()))}.
          </p>
          <ButtonForm action={`/alerts/confirm/${token}`} csrfToken={csrfToken} label="Confirm" />
        </>
      );
    },
  });

  app.post("/alerts/confirm/:token", { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const alert = await confirmAlert(civic, request.params.token);
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title={alert ? "Your alert is on" : "Link not valid"}>
        <h1>{alert ? "Your alert is on" : "This link is not valid"}</h1>
        {alert ? (
          <p>
            Thank you. New reports ({describeAlert(alert, await alertNames(db()))}) will be emailed to you, each email
            with a link to stop the alert. <a href="/reports">See the reports</a>
          </p>
        ) : (
          <p>It has been used already or is not valid.</p>
        )}
      </Layout>,
      alert ? 200 : 410,
    );
  });

  oneClickUnsubscribeRoutes(app, {
    path: "/alerts/unsubscribe",
    find: (token) => alertOfToken(civic, token),
    gone: "This link is not valid, or the alert was stopped already.",
    async page(alert) {
      return {
        title: "Stop this alert",
        lead: <p>New reports: {describeAlert(alert, await alertNames(db()))}.</p>,
        button: "Stop this alert",
      };
    },
    stop: (alert) => stopAlert(civic, alert.id),
    done: () => ({
      title: "Alert stopped",
      heading: "The alert is stopped",
      body: (
        <p>
          Nothing more about new reports will be sent to you for it. <a href="/alerts">Ask for another alert</a>
        </p>
      ),
    }),
  });
}
