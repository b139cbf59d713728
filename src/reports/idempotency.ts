import type { FastifyRequest } from "fastify";
import { formField } from "../core/http/csrf.js";
import { idempotencyHooks } from "../core/http/idempotency.js";

/**
 * The report submissions' Idempotency-Key settings. The web form (POST /report) and the app's drafts
 * (POST /api/app/reports) share the scope "report" and the same notion of content (the form fields without the
 * form token, the key field and the submit button), so a draft the service worker kept after a form post whose
 * answer was lost is recognised when it is sent again, and answered with the first report's reference. The web
 * form's token is single-use as well (core/http/single-use.tsx, formUse in routes.tsx: the same rule at the form's
 * layer).
 */
const TRANSPORT_FIELDS = ["_csrf", "action", "idempotency_key"] as const;

/** POST /report: the form carries its key in `idempotency_key` (a browser form cannot send the header). */
export const webFormIdempotency = idempotencyHooks({
  scope: "report",
  completes: (status) => status === 303,
  formField: "idempotency_key",
  ignoreFields: TRANSPORT_FIELDS,
  // "Check for reports nearby" posts the same form but creates nothing.
  applies: (request: FastifyRequest) => formField(request.body, "action") !== "check",
});

/** POST /api/app/reports: the key is required. */
export const appIdempotency = idempotencyHooks({
  scope: "report",
  completes: (status) => status === 201,
  required: true,
  ignoreFields: TRANSPORT_FIELDS,
});
