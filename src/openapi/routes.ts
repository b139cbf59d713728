import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { contentEtag, noneMatchSatisfied } from "../core/http/conditional.js";

interface Prepared {
  body: Buffer;
  etag: string;
}

function prepare(text: string): Prepared {
  const body = Buffer.from(text, "utf8");
  return { body, etag: contentEtag(body) };
}

const CACHE_CONTROL = "public, max-age=3600";

/**
 * The OpenAPI 3.1 description, generated from the route schemas (so it cannot drift from the code):
 * /openapi.yaml and /.well-known/openapi.yaml as application/yaml, /openapi.json as application/json. Prepared once,
 * cacheable, conditional (ETag/If-None-Match), open to any origin.
 */
export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  let yaml: Prepared | undefined;
  let json: Prepared | undefined;
  const documents = () => {
    yaml ??= prepare(app.swagger({ yaml: true }));
    json ??= prepare(`${JSON.stringify(app.swagger(), null, 2)}\n`);
    return { yaml, json };
  };

  const send = (request: FastifyRequest, reply: FastifyReply, doc: Prepared, type: string) => {
    reply
      .header("access-control-allow-origin", "*")
      .header("access-control-expose-headers", "ETag")
      .header("cache-control", CACHE_CONTROL)
      .header("etag", doc.etag)
      .header("vary", "Accept-Encoding");
    if (noneMatchSatisfied(request.headers["if-none-match"], doc.etag)) return reply.code(304).send();
    return reply.header("content-type", type).send(doc.body);
  };

  for (const path of ["/openapi.yaml", "/.well-known/openapi.yaml"]) {
    app.get(path, { schema: { hide: true } }, (request, reply) =>
      send(request, reply, documents().yaml, "application/yaml; charset=utf-8"),
    );
  }
  app.get("/openapi.json", { schema: { hide: true } }, (request, reply) =>
    send(request, reply, documents().json, "application/json; charset=utf-8"),
  );
  for (const path of ["/openapi.yaml", "/.well-known/openapi.yaml", "/openapi.json"]) {
    app.options(path, { schema: { hide: true } }, (_request, reply) =>
      reply
        .code(204)
        .header("access-control-allow-origin", "*")
        .header("access-control-allow-methods", "GET, HEAD, OPTIONS")
        .header("access-control-allow-headers", "If-None-Match")
        .header("access-control-max-age", "86400")
        .send(),
    );
  }
}
