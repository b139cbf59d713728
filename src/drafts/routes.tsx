import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { ProblemSchema } from "../businesses/index.js";
import { pageContext } from "../core/context.js";
import { requireSameOrigin } from "../core/http/csrf.js";
import { honeypotFilled, publicFormLimit } from "../core/http/public-form.js";
import { withUploads } from "../core/media/uploads.js";
import { registerErrorHandling } from "../core/http/error-handler.js";
import { AppError } from "../core/http/errors.js";
import { mediaStorage } from "../core/media/storage.js";
import { Layout } from "../core/web/layout.js";
import { publicDir } from "../core/web/paths.js";
import { sendPage } from "../core/web/render.js";
import { first, formSubmission, readFormBody, reportFormValues } from "../reports/index.js";
import { loadKeptPhotos } from "../reports/index.js";
import { sentPagePath, submitReport } from "../reports/index.js";
import { appIdempotency, NOT_BLANK, REPORT_PATTERNS, textLength, togetherRule } from "../reports/index.js";
import type { Bounds } from "../config.js";
import { IDEMPOTENCY_KEY_PATTERN } from "../core/http/idempotency.js";
import { ANONYMOUS_OWNER, deviceOwnerKey } from "../core/web/device-owner.js";
import { DraftsPage, OfflinePage } from "./pages.js";

/** Where the app sends drafts. Under /api, so its errors are problem+json and it is in the OpenAPI description. */
export const APP_REPORTS_PATH = "/api/app/reports";
/** The scope's prefix and the route within it (manifest.ts registers appApiRoutes under the prefix). */
export const APP_API_PREFIX = "/api/app";
const APP_REPORT_ROUTE = "/reports";
export const THEME_COLOUR = "#1d5b3a";
const ICONS = ["icon-192.png", "icon-512.png", "icon-maskable-512.png"] as const;

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ProblemSchema } },
});

const optionalText = (description: string, maxLength = 4000, pattern?: string) =>
  Type.Optional(Type.String({ maxLength, description, ...(pattern ? { pattern } : {}) }));

/**
 * The app endpoint's fields, as published: the web form's, with the checks of `submitReport` as patterns, lat and
 * lng as numbers inside the village (given together), and a location required (a pin, a place or words).
 */
function appReportBody(bounds: Bounds) {
  return Type.Object(
    {
      category: Type.String({
        maxLength: 100,
        pattern: REPORT_PATTERNS.requiredText,
        description: "The category code (an Open311 `service_code`); one that is not a category is a 400.",
      }),
      title: Type.String({
        maxLength: 120,
        pattern: REPORT_PATTERNS.requiredLine,
        description: "A short title, one line of plain text.",
      }),
      description: Type.String({
        maxLength: 4000,
        pattern: REPORT_PATTERNS.requiredText,
        description: "What the problem is, plain text.",
      }),
      lat: Type.Optional(
        Type.Number({
          minimum: bounds.south,
          maximum: bounds.north,
          description: "Latitude of the map pin (decimal degrees), inside the village, with `lng`.",
        }),
      ),
      lng: Type.Optional(
        Type.Number({
          minimum: bounds.west,
          maximum: bounds.east,
          description: "Longitude of the map pin (decimal degrees), inside the village, with `lat`.",
        }),
      ),
      place: optionalText("A street or landmark id from the gazetteer (the form's list).", 100),
      location_text: optionalText("The place in words, plain text.", 300, REPORT_PATTERNS.plainText),
      "attribute[CODE]": optionalText("Answers to the category's extra questions, as in the web form.", 4000),
      email: optionalText("For the confirmation email and follow-up; never published.", 254, REPORT_PATTERNS.email),
      name: optionalText("Never published. Plain text.", 100, REPORT_PATTERNS.plainText),
      share_contact: optionalText("`yes` to pass the contact details to the council.", 10),
      website: optionalText("Must be empty: the form's hidden field that people never fill in.", 0),
      photos: Type.Optional(
        Type.Array(Type.String({ format: "binary" }), {
          description: "Photos, as in the web form (JPEG, PNG, WebP or HEIC); all metadata is removed.",
        }),
      ),
    },
    {
      additionalProperties: true,
      anyOf: [
        { required: ["lat", "lng"] },
        { required: ["place"] },
        { required: ["location_text"], properties: { location_text: NOT_BLANK } },
      ],
      // lat and lng together (if/then rather than dependentRequired, which the server's draft-07 Ajv lacks).
      allOf: [togetherRule("lat", "lng"), togetherRule("lng", "lat")],
    },
  );
}

/**
 * Every field's length limit from the published schema (the multipart body is read in the handler, so the schema
 * check is attached rather than thrown): one 400 naming every field over its limit.
 */
function checkFieldLimits(fields: Record<string, string[]>, schema: ReturnType<typeof appReportBody>): void {
  const problems: { field: string; message: string }[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const limit = (property as { maxLength?: number }).maxLength;
    if (limit !== undefined && (fields[name] ?? []).some((v) => textLength(v) > limit)) {
      problems.push({ field: name, message: `must be at most ${limit} characters` });
    }
  }
  if (problems.length > 0) {
    const detail = problems.map((p) => `${p.field} ${p.message}`).join("; ");
    throw new AppError("validation_failed", `The report could not be accepted: ${detail}.`, { fields: problems });
  }
}

/**
 * A draft is sent only in the session that saved it (issue 33): its `Draft-Owner` header (the owner key of the page
 * that saved it, core/web/device-owner.ts; none means a draft saved without an account) must be the sending
 * session's, else nothing is created and the report is not linked to whoever is signed in now. Checked on the
 * request, before the Idempotency-Key is claimed or a stored answer replayed, and before the photos are read.
 */
function checkDraftOwner(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  const claimed = request.headers["draft-owner"];
  const owner = typeof claimed === "string" && claimed !== "" ? claimed : ANONYMOUS_OWNER;
  const current = deviceOwnerKey(request.server.civic.config.sessionSecret, request.viewer?.accountId ?? null);
  if (owner === current) return done();
  done(
    new AppError(
      "draft_owner_mismatch",
      current === ANONYMOUS_OWNER
        ? "This report was saved on this device while someone was signed in: it is sent only when they are signed in again."
        : "This report was saved on this device in another session (another account, or while nobody was signed in): it is not sent from this one.",
    ),
  );
}

const AppReportCreated = Type.Object({
  reference: Type.String({ description: "The report's reference number.", examples: ["K7QM-3X9P"] }),
  url: Type.String({ description: "The confirmation page of the report." }),
  serviceNotice: Type.String({ description: "What happens next." }),
});

/**
 * The installable app: the web app manifest and its icons, the service worker (/sw.js, scope /), the offline page,
 * the page listing the reports saved on this device, and the endpoint those drafts are sent to.
 */
export async function draftRoutes(app: FastifyInstance): Promise<void> {
  const civic = app.civic;
  const { config } = civic;

  app.get("/manifest.webmanifest", { schema: { hide: true } }, async (_request, reply) => {
    const icon = (name: string, size: number, purpose: string) => ({
      src: `/icons/${name}`,
      sizes: `${size}x${size}`,
      type: "image/png",
      purpose,
    });
    return reply
      .type("application/manifest+json; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .send(
        JSON.stringify({
          id: "/",
          name: `${config.village.name} Community Platform`,
          short_name: config.village.name,
          description: `Report local, non-urgent problems in ${config.village.name}, even offline.`,
          lang: "en-GB",
          start_url: "/",
          scope: "/",
          display: "standalone",
          background_color: "#ffffff",
          theme_color: THEME_COLOUR,
          icons: [
            icon("icon-192.png", 192, "any"),
            icon("icon-512.png", 512, "any"),
            icon("icon-maskable-512.png", 512, "maskable"),
          ],
          shortcuts: [{ name: "Report an issue", url: "/report" }],
        }),
      );
  });

  async function sendBuilt(reply: FastifyReply, file: string, type: string, cacheControl: string) {
    let bytes: Buffer;
    try {
      bytes = await readFile(join(publicDir, file));
    } catch {
      throw new AppError("not_found", `${file} has not been built: run "npm run build".`);
    }
    return reply.type(type).header("cache-control", cacheControl).send(bytes);
  }

  // The service worker must be re-checked on every navigation (no-cache), else a new version waits for a day.
  app.get("/sw.js", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("service-worker-allowed", "/");
    return sendBuilt(reply, "sw.js", "text/javascript; charset=utf-8", "no-cache");
  });

  // Typed from its schema. The app endpoint below stays on `app`: it sends prepared JSON, which a reply typed from its
  // response schemas would not take.
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    "/icons/:name",
    { schema: { hide: true, params: Type.Object({ name: Type.String({ maxLength: 40 }) }) } },
    async (request, reply) => {
      const { name } = request.params;
      if (!(ICONS as readonly string[]).includes(name)) throw new AppError("not_found", "There is no such icon.");
      return sendBuilt(reply, join("icons", name), "image/png", "public, max-age=86400");
    },
  );

  app.get("/offline", { schema: { hide: true } }, async (request, reply) => {
    reply.header("x-robots-tag", "noindex");
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title="You are offline">
        <OfflinePage />
      </Layout>,
    );
  });

  app.get("/report/drafts", { schema: { hide: true } }, async (request, reply) => {
    reply.header("x-robots-tag", "noindex");
    return sendPage(
      reply,
      <Layout
        ctx={pageContext(request)}
        title="Reports saved on this device"
        description="Reports saved on this device while offline, sent automatically when you are back online."
        scripts={["enhance.js", "drafts-page.js"]}
      >
        <DraftsPage />
      </Layout>,
    );
  });
}

/**
 * The installed app's endpoint (POST /api/app/reports): its own scope under /api/app (see manifest.ts), whose errors
 * and unknown paths answer in problem+json; the session is read, as the drafts of a signed-in person are theirs.
 */
export async function appApiRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  registerErrorHandling(app, "problem");
  const civic = app.civic;
  const { config } = civic;
  const ownOrigins = [new URL(config.baseUrl).origin];

  const appBody = appReportBody(config.village.bounds);
  app.post(
    APP_REPORT_ROUTE,
    {
      ...appIdempotency,
      onRequest: checkDraftOwner,
      attachValidation: true,
      config: { csrf: false, session: true, ...publicFormLimit(civic) },
      schema: {
        summary: "Send a report saved by the app",
        description:
          "Where the installed app sends reports it saved on the device while offline, possibly days later. It takes the web form's fields as `multipart/form-data` and has its own defences instead of the web form's expiring form token and minimum fill time: an `Idempotency-Key` header is required (a retry with the same key and the same fields answers with the first report's reference and creates nothing; 409 while the first is still being processed; 422 when the key was used for different fields); only this site's pages may send it (a request without `Origin` or `Sec-Fetch-Site: same-origin` is refused with 403, so programs use Open311 instead); the `website` field must be empty; it is rate-limited like the web form; and the web form's size limits apply (photos, fields, body). The web form and this endpoint share their keys, so a report first posted by the form whose answer was lost is recognised here. A refused report (400 `validation_failed`, with `errors` per field) creates nothing and releases its key. Sent with the session cookie of a signed-in person, the report is linked to their account, as with the web form, but only if it was saved in that account's session: the `Draft-Owner` header names the session that saved the draft (the page's `device-owner`), and a draft of another account, or one saved while nobody was signed in sent by a signed-in person (or the reverse), is refused with 409 `draft_owner_mismatch` before anything else. A report from an account or address on the ban list gets the usual answer but is never published.",
        tags: ["App"],
        headers: Type.Object(
          {
            "idempotency-key": Type.String({
              maxLength: 300,
              pattern: IDEMPOTENCY_KEY_PATTERN,
              description:
                'Required. A new random value for each report (a UUID, as a quoted string: `"8e03978e-40d5-43e8-bc93-6894a57f9324"`), the same for its retries.',
            }),
            "draft-owner": Type.Optional(
              Type.String({
                maxLength: 100,
                description:
                  "The owner key of the session that saved the draft, from the page's `<meta name=\"device-owner\">`: `anonymous` (the default) for a draft saved while nobody was signed in. It must be the sending session's, else 409 `draft_owner_mismatch`.",
              }),
            ),
          },
          { additionalProperties: true },
        ),
        body: { content: { "multipart/form-data": { schema: appBody } } },
        response: {
          201: {
            description: "The report was created (or had been, for a retry): its reference.",
            content: { "application/json": { schema: AppReportCreated } },
          },
          400: problem("The report was refused (`validation_failed`, `errors` per field) or the key is missing."),
          403: problem("Sent from another website, or without `Origin` (not from this site's pages)."),
          409: problem(
            "A request with this Idempotency-Key is still being processed: retry after `Retry-After` (`idempotency_key_in_use`); or the draft was saved in another session than this one (`draft_owner_mismatch`).",
          ),
          413: problem("Too large: too many or too big photos."),
          415: problem("Not multipart/form-data."),
          422: problem("This Idempotency-Key was used for a different report."),
          429: problem("Too many reports from this address: retry after `Retry-After`."),
          408: problem("The photos arrived too slowly (under 1 KB/s over 10 s by default) and were not kept."),
          503: problem("Too many uploads are in progress: retry after `Retry-After`."),
        },
      },
    },
    async (request, reply) => {
      requireSameOrigin(request, ownOrigins);
      if (!request.isMultipart()) {
        throw new AppError("unsupported_media_type", "Send the report as multipart/form-data.");
      }
      return withUploads(
        request,
        (field) => field === "photos",
        async (files) => {
          const form = readFormBody(request.body, files);
          if (honeypotFilled(first(form, "website"))) {
            throw new AppError("validation_failed", "The report could not be accepted: there is 1 problem.", {
              fields: [{ field: "website", message: "must be empty" }],
            });
          }
          checkFieldLimits(form.fields, appBody);
          const kept = await loadKeptPhotos(
            // Photos kept by an earlier "check for reports nearby" in the same form.
            mediaStorage(config),
            config.sessionSecret,
            form.fields.kept_photo ?? [],
          );
          const uploads = form.files.photos ?? [];
          // The signed-in person's drafts are theirs, as with the web form (the ban list applies to the account).
          const accountId = request.viewer?.accountId ?? null;
          const result = await submitReport(
            civic,
            formSubmission(reportFormValues(form), [...kept.photos, ...uploads], accountId),
          );
          return reply
            .code(201)
            .header("content-type", "application/json; charset=utf-8")
            .header("cache-control", "no-store")
            .header("location", `/reports/${result.reference}`)
            .send({
              reference: result.reference,
              url: sentPagePath(config.sessionSecret, result.reference),
              serviceNotice: result.serviceNotice,
            });
        },
      );
    },
  );
}
