import type { FastifyReply, FastifyRequest } from "fastify";
import { formField } from "../core/http/csrf.js";
import { idempotencyHooks, idempotencyScope } from "../core/http/idempotency.js";

/**
 * The report submissions' Idempotency-Key settings. The web form (POST /report) and the app's drafts
 * (POST /api/app/reports) share the scope "report" and the same notion of content (the form fields without the
 * form token, the key field and the submit button), so a draft the service worker kept after a form post whose
 * answer was lost is recognised when it is sent again, and answered with the first report's reference. The web
 * form's token is single-use as well (core/http/single-use.tsx, formUse in routes.tsx: the same rule at the form's
 * layer).
 *
 * Keys are the sender's: a signed-in person's are their account's own (`report:account:<id>`, read from the session
 * before the key is looked at); anonymous posts share one key space (`report:anonymous`), where the keys are the
 * form's and the app's random UUIDs (122 random bits each, made fresh for every report), which no one else can
 * guess, so an anonymous sender cannot reach another's answer by a key of their own choosing.
 */
const TRANSPORT_FIELDS = ["_csrf", "action", "idempotency_key"] as const;

/** The name of the report stored with an answer: its reference, from the answer's Location. */
export function reportResource(reference: string): string {
  return `report:${reference}`;
}

const SCOPE = "report";
const accountClient = (accountId: string) => `account:${accountId}`;

/** The key space of a signed-in person's report submissions (erased with their data). */
export function accountReportScope(accountId: string): string {
  return idempotencyScope(SCOPE, accountClient(accountId));
}

const reporter = (request: FastifyRequest) => (request.viewer ? accountClient(request.viewer.accountId) : "anonymous");

/** Both answers point at the report: /report/sent/{reference} (the form) and /reports/{reference} (the app). */
function createdReport(_request: FastifyRequest, reply: FastifyReply): string | null {
  const location = reply.getHeader("location");
  const reference = typeof location === "string" ? /\/(?:report\/sent|reports)\/([^/?#]+)$/.exec(location)?.[1] : null;
  return reference ? reportResource(reference) : null;
}

const webForm = idempotencyHooks({
  scope: SCOPE,
  client: reporter,
  resource: createdReport,
  completes: (status) => status === 303,
  formField: "idempotency_key",
  ignoreFields: TRANSPORT_FIELDS,
  // "Check for reports nearby" posts the same form but creates nothing.
  applies: (request: FastifyRequest) => formField(request.body, "action") !== "check",
});

/** POST /report: the form carries its key in `idempotency_key` (a browser form cannot send the header). */
export const webFormIdempotency = { preValidation: webForm.claim, onSend: webForm.onSend };

const app = idempotencyHooks({
  scope: SCOPE,
  client: reporter,
  resource: createdReport,
  completes: (status) => status === 201,
  required: true,
  ignoreFields: TRANSPORT_FIELDS,
});

/** POST /api/app/reports: the key is required. */
export const appIdempotency = { preValidation: app.claim, onSend: app.onSend };
