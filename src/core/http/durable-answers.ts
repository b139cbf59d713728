import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Database } from "../db/database.js";
import { AppError } from "./errors.js";

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Every successful answer to a write request (POST, PUT, PATCH, DELETE: a 201, the 303 after a form) leaves only
 * once the writes committed so far are on disk (Database.durable: on SQLite an fdatasync of the WAL off the event
 * loop, see core/db/wal-sync.ts). GET and HEAD never wait, nor do error answers (4xx, 5xx): they promise nothing
 * was stored, and a refused upload's answer must leave at once (core/media/uploads.ts starts reading and dropping
 * the rest of the body when the answer is sent, and closes the connection after 4 MB of it).
 *
 * The wait is an onSend hook appended to each write route's own hooks, not an app-wide one: route-level hooks run
 * after the app's, and the last of them (e.g. the idempotency hook storing the answer for a retry) still write, so
 * the wait must come after them. onSend sees every answer, whatever its payload (preSerialization only sees
 * objects), and can still change it: when the writes cannot be made durable, a success becomes a 503 through the
 * error handler, in the format of the route (Open311 errors, problem+json, an HTML page); an answer that is
 * already an error promises nothing and goes out as it is.
 */
export function registerDurableAnswers(app: FastifyInstance, database: Database): void {
  const hook = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    // The 503 thrown below comes back through here as an error answer, so it goes out without waiting again.
    if (!WRITE_METHODS.has(request.method) || reply.statusCode >= 400) return payload;
    try {
      await database.durable();
      return payload;
    } catch (error) {
      request.log.fatal({ err: error }, "the database could not sync its writes to disk: this write is refused");
      // A 303 must not send the browser on to a "sent" page.
      reply.removeHeader("location");
      throw new AppError(
        "service_unavailable",
        "We could not confirm that your request was stored safely. Please try again later.",
        { cause: error },
      );
    }
  };
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => WRITE_METHODS.has(method))) return;
    const existing = route.onSend;
    route.onSend = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
}
