import type { FastifyInstance } from "fastify";
import { Type } from "typebox";

const HealthResponse = Type.Object({ status: Type.Union([Type.Literal("ok"), Type.Literal("unavailable")]) });

/** GET /healthz: 200 when the database answers, 503 otherwise. For load balancers and uptime checks. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    "/healthz",
    {
      schema: {
        hide: true,
        response: { 200: HealthResponse, 503: HealthResponse },
      },
    },
    async (_request, reply) => {
      const ok = await app.civic.database.ping();
      reply.header("cache-control", "no-store");
      return ok ? reply.code(200).send({ status: "ok" }) : reply.code(503).send({ status: "unavailable" });
    },
  );
}
