import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { Civic } from "../core/context.js";

const HealthResponse = Type.Object({
  status: Type.Union([Type.Literal("ok"), Type.Literal("unavailable"), Type.Literal("draining")]),
});

const draining = new WeakSet<Civic>();

/** From now on GET /readyz answers 503, so load balancers stop sending new requests (see server.ts shutdown). */
export function startDraining(civic: Civic): void {
  draining.add(civic);
}

/**
 * GET /healthz: liveness, 200 when the database answers, 503 otherwise (also while draining, the process is alive).
 * GET /readyz: readiness, 200 while the process takes traffic, 503 from the moment it starts draining on SIGTERM
 * or when the database does not answer. For load balancers and uptime checks.
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const schema = { hide: true, response: { 200: HealthResponse, 503: HealthResponse } };
  // Machine endpoints (errors as problem+json by their URL): no session, no form token.
  const config = { family: "problem", session: false } as const;
  app.get("/healthz", { schema, config }, async (_request, reply) => {
    const ok = await app.civic.database.ping();
    reply.header("cache-control", "no-store");
    return ok ? reply.code(200).send({ status: "ok" }) : reply.code(503).send({ status: "unavailable" });
  });
  app.get("/readyz", { schema, config }, async (_request, reply) => {
    reply.header("cache-control", "no-store");
    if (draining.has(app.civic)) return reply.code(503).send({ status: "draining" });
    const ok = await app.civic.database.ping();
    return ok ? reply.code(200).send({ status: "ok" }) : reply.code(503).send({ status: "unavailable" });
  });
}
