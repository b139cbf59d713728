import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LRUCache } from "lru-cache";
import { Type } from "typebox";
import { contentEtag, notModified } from "../core/http/conditional.js";
import { notFound } from "../core/http/errors.js";
import { publicReadVersion } from "./data-version.js";
import { MapCellCopy } from "./map-cells.js";
import {
  BBOX_PATTERN,
  type CellSum,
  cellSums,
  geoReports,
  type KeptCellSums,
  mapReports,
  MAX_KEPT_CELLS,
  type MapFilter,
  parseBbox,
} from "./map-data.js";
import { REPORT_STATUSES, STATUS_LABELS } from "./model.js";

/** Machine endpoints: errors as problem+json (their URL is under /api/), no session, no form token. */
const config = { family: "problem", session: false } as const;

const MAP_CACHE = "public, no-cache";
const GEOJSON_CACHE = "public, max-age=60";
/** The most features one GeoJSON answer holds; ask for the next page with `before`. */
export const GEOJSON_MAX = 1000;

const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    instance: Type.String(),
    requestId: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { description: "RFC 9457 problem details (application/problem+json)" },
);
const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: Problem } },
});

const headers = (lastModified: boolean) => ({
  ETag: {
    type: "string",
    description: 'A strong entity tag of the bytes; "-gzip" or "-br" is appended for encoded answers',
  },
  ...(lastModified
    ? {
        "Last-Modified": {
          type: "string",
          description: "When the newest change to a report of the answer was made (HTTP date), when it has any",
        },
      }
    : {}),
  "Cache-Control": { type: "string" },
  "Access-Control-Allow-Origin": { type: "string", description: "*" },
});

const filterFields = {
  category: Type.Optional(
    Type.String({ maxLength: 100, description: "A category code (as in `/api/v2/services.json`); empty for all." }),
  ),
  status: Type.Optional(
    Type.String({
      enum: ["", ...REPORT_STATUSES],
      description: `One status; empty for all. ${REPORT_STATUSES.map((s) => `\`${s}\`: ${STATUS_LABELS[s]}`).join("; ")}.`,
    }),
  ),
  hide_closed: Type.Optional(
    Type.Boolean({
      description:
        "`true` leaves out reports that are dealt with: fixed, closed, duplicate and not the council's responsibility.",
    }),
  ),
};
const bboxField = (description: string) =>
  Type.String({ maxLength: 100, pattern: BBOX_PATTERN, description, examples: ["-2.0651,50.975,-2.0223,50.9974"] });

const MapQuery = Type.Object({
  bbox: bboxField(
    "The visible area: `west,south,east,north` in decimal degrees (WGS 84), west < east and south < north (else 400).",
  ),
  zoom: Type.Integer({ minimum: 0, maximum: 20, description: "The map's zoom level (web map tiles, 0 to 20)." }),
  ...filterFields,
});

const Status = Type.String({ enum: [...REPORT_STATUSES] });
const MapAnswer = Type.Object(
  {
    bbox: Type.Array(Type.Number(), { minItems: 4, maxItems: 4, description: "The box asked for." }),
    zoom: Type.Integer(),
    total: Type.Integer({ description: "How many matching reports are in the box." }),
    points: Type.Array(
      Type.Array(Type.Union([Type.String(), Type.Number()]), {
        minItems: 5,
        maxItems: 5,
        description:
          "One report, as an array: reference (string), latitude, longitude (numbers), status (one of the statuses) and title (string).",
      }),
    ),
    clusters: Type.Array(
      Type.Array(Type.Number(), {
        minItems: 3,
        maxItems: 3,
        description:
          "Reports counted together, as an array: latitude and longitude of their mean position, how many (2 or more).",
      }),
    ),
  },
  { additionalProperties: false },
);

const GeoQuery = Type.Object({
  bbox: Type.Optional(
    bboxField(
      "Only reports inside `west,south,east,north` (decimal degrees, WGS 84; west < east and south < north, else 400).",
    ),
  ),
  ...filterFields,
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: GEOJSON_MAX,
      description: `Features per answer (default and maximum ${GEOJSON_MAX}).`,
    }),
  ),
  before: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'The reference of the last feature of the previous answer: the next (older) ones. The `Link: rel="next"` header gives the whole address; an unknown reference is a 404.',
    }),
  ),
});

const Feature = Type.Object(
  {
    type: Type.Literal("Feature"),
    id: Type.String({ description: "The report's reference." }),
    geometry: Type.Object(
      {
        type: Type.Literal("Point"),
        coordinates: Type.Array(Type.Number(), {
          minItems: 2,
          maxItems: 2,
          description: "Longitude, latitude (RFC 7946 order), WGS 84.",
        }),
      },
      { additionalProperties: false },
    ),
    properties: Type.Object(
      {
        reference: Type.String(),
        title: Type.String(),
        category: Type.String({ description: "The category code." }),
        status: Status,
        statusLabel: Type.String(),
        url: Type.String({ format: "uri", description: "The report's public page." }),
        created: Type.String({ format: "date-time" }),
        updated: Type.String({ format: "date-time" }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
const FeatureCollection = Type.Object(
  { type: Type.Literal("FeatureCollection"), features: Type.Array(Feature) },
  { additionalProperties: false, description: "An RFC 7946 GeoJSON FeatureCollection of Point features." },
);

interface Prepared {
  version: number;
  body: string;
  etag: string;
  lastModified?: Date | undefined;
  link?: string | undefined;
}

/**
 * /api/reports/map.json (what the reports maps draw) and /api/reports.geojson (the same public reports for GIS tools
 * and other sites). Answers are kept per public read version (reports/data-version.ts): a repeat, from any client,
 * costs one small query, and a client that sends its ETag back gets a 304.
 */
export async function reportMapRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;
  const kept = new LRUCache<string, Prepared>({
    maxSize: 8 * 1024 * 1024,
    sizeCalculation: (p, key) => p.body.length + key.length + 100,
  });

  // The whole area's sums per near-here cell for each filter, for the public read version they were read at: any
  // box of the map is counted from them without a query until the public data changes (map-data.ts).
  const cellsKept = new LRUCache<
    string,
    { version: number; sums?: CellSum[] | null; loading: Promise<CellSum[] | null> }
  >({ maxSize: 4 * MAX_KEPT_CELLS, sizeCalculation: (e) => 1 + (e.sums?.length ?? 0) });
  // This process's copy of the cells' rows, brought up to date by reading only the rows changed since (map-cells.ts).
  const copy = new MapCellCopy(db);
  function keptCells(filter: MapFilter, version: number): KeptCellSums {
    const key = `${filter.category ?? ""}|${filter.status ?? ""}|${filter.unresolved ? 1 : 0}`;
    const current = () => {
      const e = cellsKept.get(key);
      return e?.version === version ? e : undefined;
    };
    return {
      ready: () => current()?.sums,
      load: () => {
        const e = current();
        if (e) return e.loading;
        const loading = copy
          .sums(filter, version)
          .then((sums) => sums ?? cellSums(db(), filter))
          .then((sums) => (sums.length > MAX_KEPT_CELLS ? null : sums));
        const entry: { version: number; sums?: CellSum[] | null; loading: Promise<CellSum[] | null> } = {
          version,
          loading,
        };
        cellsKept.set(key, entry);
        loading.then(
          (sums) => {
            // Sized once read (a later version may have replaced it meanwhile).
            if (cellsKept.peek(key) === entry) cellsKept.set(key, { ...entry, sums });
          },
          () => {
            if (cellsKept.peek(key) === entry) cellsKept.delete(key);
          },
        );
        return loading;
      },
    };
  }

  async function send(
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    type: string,
    cacheControl: string,
    build: (version: number) => Promise<Omit<Prepared, "version" | "etag">>,
  ) {
    const version = await publicReadVersion(db());
    let answer = kept.get(key);
    if (!answer || answer.version !== version) {
      const built = await build(version);
      answer = { ...built, version, etag: contentEtag(built.body) };
      kept.set(key, answer);
    }
    reply
      .header("etag", answer.etag)
      .header("cache-control", cacheControl)
      .header("access-control-allow-origin", "*")
      .header("access-control-expose-headers", "ETag, Last-Modified, Link");
    if (answer.lastModified) reply.header("last-modified", answer.lastModified.toUTCString());
    if (answer.link) reply.header("link", answer.link);
    if (notModified(request.headers, { etag: answer.etag, lastModified: answer.lastModified })) {
      return reply.code(304).send();
    }
    return reply.type(type).send(answer.body);
  }

  const filterOf = (q: { category?: string; status?: string; hide_closed?: boolean }): MapFilter => ({
    category: q.category || undefined,
    status: q.status ? (q.status as MapFilter["status"]) : undefined,
    unresolved: q.hide_closed === true,
  });

  app.get(
    "/api/reports/map.json",
    {
      config,
      schema: {
        tags: ["Reports"],
        summary: "Public reports in an area, for a map",
        description:
          "What the site's reports maps draw: the public reports inside `bbox` that match the filters of `/reports`. Up to 500 reports are given one by one (`points`) when `zoom` is above 12; otherwise, and for more, they are counted per cell of a grid of about 64 screen pixels at that zoom (at most 64 × 64 cells over the box; `clusters`, a cell holding one report giving it as a point). `total` is how many match in the box. Hidden and removed reports are never included. Conditional: send the `ETag` back in `If-None-Match` for a 304.",
        querystring: MapQuery,
        response: {
          200: {
            description: "The reports in the box, one by one or counted per cell.",
            headers: headers(false),
            content: { "application/json": { schema: MapAnswer } },
          },
          304: { description: "Not Modified: If-None-Match matched the ETag.", headers: headers(false) },
          400: problem("A parameter is not valid (`errors` names it): e.g. a bbox out of range or inverted."),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const box = parseBbox(q.bbox);
      const filter = filterOf(q);
      const key = `map|${box.join(",")}|${q.zoom}|${filter.category ?? ""}|${filter.status ?? ""}|${filter.unresolved ? 1 : 0}`;
      return send(request, reply, key, "application/json; charset=utf-8", MAP_CACHE, async (version) => ({
        body: JSON.stringify(await mapReports(db(), filter, box, q.zoom, keptCells(filter, version))),
      }));
    },
  );

  app.get(
    "/api/reports.geojson",
    {
      config,
      schema: {
        tags: ["Reports"],
        summary: "Public reports as GeoJSON",
        description: `The public reports that have a position, newest first, as an RFC 7946 GeoJSON FeatureCollection (\`application/geo+json\`) of Point features, for GIS tools and other sites. Each feature's \`id\` is the report's reference; its properties are the reference, title, category code, status and its label, the report page's \`url\` and the \`created\` and \`updated\` times (UTC). No personal data: never the reporter's name or contact details. Filters as on \`/reports\`, and \`bbox\` for an area. At most ${GEOJSON_MAX} features an answer (\`limit\`); when there are more, the \`Link\` header gives the next page (\`rel="next"\`, with \`before\`). Conditional: \`ETag\` and \`Last-Modified\` (the newest \`updated\` of the answer), \`304\` for \`If-None-Match\` or, without it, \`If-Modified-Since\`.`,
        querystring: GeoQuery,
        response: {
          200: {
            description: "A FeatureCollection of Point features.",
            headers: { ...headers(true), Link: { type: "string", description: 'The next page: `<…>; rel="next"`.' } },
            content: { "application/geo+json": { schema: FeatureCollection } },
          },
          304: { description: "Not Modified: the ETag (or the Last-Modified date) matched.", headers: headers(true) },
          400: problem("A parameter is not valid (`errors` names it): e.g. a bbox out of range or inverted."),
          404: problem("`before` is not the reference of a report."),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const box = q.bbox ? parseBbox(q.bbox) : null;
      const filter = filterOf(q);
      const limit = q.limit ?? GEOJSON_MAX;
      const base = civic.config.baseUrl;
      const key = `geo|${box?.join(",") ?? ""}|${filter.category ?? ""}|${filter.status ?? ""}|${filter.unresolved ? 1 : 0}|${limit}|${q.before ?? ""}`;
      return send(request, reply, key, "application/geo+json; charset=utf-8", GEOJSON_CACHE, async () => {
        const reports = await geoReports(db(), filter, box, { limit, before: q.before });
        if (!reports) throw notFound("There is no report with this reference to continue from.");
        const newest = reports.reduce((m, r) => (r.updatedAt > m ? r.updatedAt : m), "");
        const last = reports.at(-1);
        let link: string | undefined;
        if (last && reports.length === limit) {
          const next = new URLSearchParams();
          if (q.bbox) next.set("bbox", q.bbox);
          if (filter.category) next.set("category", filter.category);
          if (filter.status) next.set("status", filter.status);
          if (filter.unresolved) next.set("hide_closed", "true");
          if (q.limit) next.set("limit", String(q.limit));
          next.set("before", last.reference);
          link = `<${base}/api/reports.geojson?${next.toString()}>; rel="next"`;
        }
        const body = JSON.stringify({
          type: "FeatureCollection",
          features: reports.map((r) => ({
            type: "Feature",
            id: r.reference,
            geometry: { type: "Point", coordinates: [r.lng, r.lat] },
            properties: {
              reference: r.reference,
              title: r.title,
              category: r.categoryCode,
              status: r.status,
              statusLabel: STATUS_LABELS[r.status],
              url: `${base}/reports/${r.reference}`,
              created: r.createdAt,
              updated: r.updatedAt,
            },
          })),
        });
        return { body, link, lastModified: newest ? new Date(newest) : undefined };
      });
    },
  );
}
