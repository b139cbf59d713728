import type { FastifyServerOptions } from "fastify";
import type { LogLevel } from "../../config.js";
import { redactDeep, redactEmails } from "./redact.js";

/**
 * Structured JSON logs (pino) with email addresses redacted from every message, object and URL, and
 * without request headers or bodies.
 */
export function loggerOptions(level: LogLevel): FastifyServerOptions["logger"] {
  return {
    level,
    hooks: {
      logMethod(args, method) {
        const clean = args.map((a) => (typeof a === "string" ? redactEmails(a) : redactFields(a))) as typeof args;
        method.apply(this, clean);
      },
    },
    serializers: {
      req(req: { method?: string; url?: string; id?: string }) {
        return { id: req.id, method: req.method, url: redactEmails(req.url ?? "") };
      },
      res(res: { statusCode: number }) {
        return { statusCode: res.statusCode };
      },
      err(err: Error & { code?: string; statusCode?: number }) {
        return {
          type: err.name,
          code: err.code,
          statusCode: err.statusCode,
          message: redactEmails(err.message ?? ""),
          stack: redactEmails(err.stack ?? ""),
        };
      },
    },
  };
}

/** Objects the serializers above handle are left to them; every other field is redacted deeply. */
const SERIALIZED = new Set(["req", "res", "err"]);
function redactFields(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Error) {
    return redactDeep(value);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SERIALIZED.has(k) ? v : redactDeep(v);
  return out;
}
