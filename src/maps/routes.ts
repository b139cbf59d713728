import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { contentEtag, notModified } from "../core/http/conditional.js";
import { notFound } from "../core/http/errors.js";
import { inRange, offlinePlan, servedRange } from "./area.js";
import { TILE_MAX_AGE_MS, TileProxy } from "./proxy.js";

/** A fresh tile is kept by browsers and caches as long as we keep it: a week. */
const FRESH = `public, max-age=${TILE_MAX_AGE_MS / 1000}`;
/** An old copy, served while the upstream fails: asked for again within the hour. */
const STALE = "public, max-age=3600";
/** A whole number as written in a tile's address: no sign, no leading zero, no fraction, no exponent. */
const WHOLE = /^(?:0|[1-9]\d{0,7})$/;
const FILE = /^(0|[1-9]\d{0,7})\.png$/;

const NO_TILE = "There is no map tile at this address.";

/**
 * GET /tiles/{z}/{x}/{y}.png: the village's map tiles, from this site, so that a map view tells no other server who
 * is looking (src/maps/proxy.ts fetches and keeps them), and GET /tiles/offline.json: the tiles the installed app
 * keeps for offline use (src/client/sw/service-worker.ts). Only while MAP_TILE_PROXY is on; both are pages' helpers,
 * not API (hidden from the OpenAPI description, errors as pages).
 */
export async function tileRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = app.civic;
  if (!config.map.proxy) return;
  const proxy = new TileProxy(app.civic, app.log);

  app.get(
    "/tiles/:z/:x/:file",
    {
      // Public images: no session, nothing to compress (PNG), and answers that do not vary.
      config: { session: false, compress: false },
      schema: {
        hide: true,
        params: Type.Object({
          z: Type.String({ maxLength: 8 }),
          x: Type.String({ maxLength: 8 }),
          file: Type.String({ maxLength: 12 }),
        }),
      },
    },
    async (request, reply) => {
      const { z: zText, x: xText, file } = request.params;
      const yText = FILE.exec(file)?.[1];
      if (!WHOLE.test(zText) || !WHOLE.test(xText) || yText === undefined) throw notFound(NO_TILE);
      const [z, x, y] = [Number(zText), Number(xText), Number(yText)];
      const range = servedRange(config, z);
      if (!range || !inRange(range, x, y)) throw notFound(NO_TILE);
      const tile = await proxy.tile(z, x, y);
      const etag = `"${tile.hash.slice(0, 32)}"`;
      const lastModified = new Date(tile.fetchedAt);
      reply
        .header("cache-control", tile.stale ? STALE : FRESH)
        .header("etag", etag)
        .header("last-modified", lastModified.toUTCString());
      if (notModified(request.headers, { etag, lastModified })) return reply.code(304).send();
      return reply.header("content-type", tile.contentType).send(tile.data);
    },
  );

  const plan = offlinePlan(config);
  app.get("/tiles/offline.json", { config: { session: false }, schema: { hide: true } }, async (request, reply) => {
    // How many of them this site keeps now, and their size: what an installed app downloads at most.
    let kept = { count: 0, bytes: 0 };
    if (plan.zooms.length > 0) {
      const row = await app.civic.database.db
        .selectFrom("map_tiles")
        .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.sum<number>("bytes").as("bytes")])
        .where((eb) =>
          eb.or(
            plan.zooms.map((r) =>
              eb.and([
                eb("z", "=", r.z),
                eb("x", ">=", r.minX),
                eb("x", "<=", r.maxX),
                eb("y", ">=", r.minY),
                eb("y", "<=", r.maxY),
              ]),
            ),
          ),
        )
        .executeTakeFirst();
      kept = { count: Number(row?.count ?? 0), bytes: Number(row?.bytes ?? 0) };
    }
    const body = JSON.stringify({
      version: plan.version,
      count: plan.count,
      maxAgeSeconds: TILE_MAX_AGE_MS / 1000,
      zooms: plan.zooms,
      kept,
    });
    const etag = contentEtag(body);
    reply.header("cache-control", "no-cache").header("etag", etag);
    if (notModified(request.headers, { etag })) return reply.code(304).send();
    return reply.header("content-type", "application/json; charset=utf-8").send(body);
  });
}
