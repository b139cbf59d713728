import type { FastifyRequest } from "fastify";
import type { Civic } from "../context.js";
import type { FormToken } from "./csrf.js";
import { can } from "../policy.js";
import type { FieldProblem } from "./errors.js";

/** A person needs at least this long to fill in a public form; bots are faster. Measured from the form token. */
export const MIN_FILL_MS = 3_000;

/** The route options of a public write form: the same per-client rate limit as the report form. */
export function publicFormLimit(civic: Civic) {
  return { rateLimit: { max: civic.config.rateLimit.writeMax, timeWindow: civic.config.rateLimit.windowMs } };
}

/** Whether the hidden field people never fill in (`website`, the Honeypot component) was filled in: a naive bot. */
export function honeypotFilled(website: string | undefined): boolean {
  return (website ?? "").trim() !== "";
}

/**
 * The spam defences of public forms that need no tracking: a hidden field people never fill in (`website`) and a
 * minimum time between the form token's issue and the post. Returns the verified token (for single-use
 * bookkeeping) and the problems to show on the form; `quick` is the form's own words for a post that came too soon.
 */
export function spamChecks(
  civic: Civic,
  fields: { _csrf?: string; website?: string },
  { quick = "That was very quick. Please check the form and send it again." }: { quick?: string } = {},
): { token: FormToken | null; problems: FieldProblem[] } {
  const token = civic.formTokens.verify(fields._csrf);
  if (honeypotFilled(fields.website)) {
    return {
      token,
      problems: [{ field: "form", message: "This form could not be sent. Please leave the last, hidden field empty." }],
    };
  }
  if (!token || civic.now().getTime() - token.issuedAt < MIN_FILL_MS) {
    return { token, problems: [{ field: "form", message: quick }] };
  }
  return { token, problems: [] };
}

/** Reads a urlencoded (or multipart-fields) body as plain strings; anything else is "". */
export function stringFields(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!body || typeof body !== "object") return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (typeof value === "string") out[k] = value;
    else if (value && typeof value === "object" && "value" in value && typeof value.value === "string") {
      out[k] = value.value;
    }
  }
  return out;
}

/** Whether the request comes from staff (moderator or admin): asks the policy. */
export function isStaff(request: FastifyRequest): boolean {
  return can(request.viewer, "staff.enter");
}
