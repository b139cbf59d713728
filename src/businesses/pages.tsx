import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { pageContext } from "../core/context.js";
import { AppError } from "../core/http/errors.js";
import { ErrorSummary } from "../core/web/forms.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import type { BusinessDataset, Entry, Snapshot } from "./dataset.js";
import { businessJsonLd, jsonForScript } from "./jsonld.js";
import { type BusinessRecord, DAYS, type OpeningHours } from "./model.js";
import { IdParams } from "./schemas.js";
import { searchBusinessIds } from "./search.js";
import { isLocalBusinessType, selfAndAncestors, typeLabel } from "./vocabulary.js";

const PAGE_SIZE = 50;
const MAX_Q = 200;
const Q_TOO_LONG = `Search text must be ${MAX_Q} characters or fewer`;

const DirectoryQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 2000 })),
  category: Type.Optional(Type.String({ maxLength: 200 })),
  schemaType: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.String({ maxLength: 10 })),
});

/** The types offered as a filter: those in use and every LocalBusiness type above them, by label. */
function typeOptions(snap: Snapshot): { name: string; label: string }[] {
  const names = new Set<string>();
  for (const e of snap.entries) {
    for (const t of selfAndAncestors(e.record.schemaType)) if (isLocalBusinessType(t)) names.add(t);
  }
  return [...names]
    .map((name) => ({ name, label: typeLabel(name) }))
    .sort((a, b) => a.label.localeCompare(b.label, "en-GB"));
}

function addressLine(b: BusinessRecord): string {
  const a = b.address;
  return [a.streetAddress, a.addressLocality, a.postalCode].filter(Boolean).join(", ");
}

/** For each day, the opening times as text ("07:00 to 15:00"), or null when closed. */
export function hoursByDay(hours: OpeningHours[]): { day: string; times: string | null }[] {
  return DAYS.map((day) => {
    const ranges = hours
      .filter((h) => h.dayOfWeek.includes(day))
      .sort((a, b) => a.opens.localeCompare(b.opens))
      .map((h) => `${h.opens} to ${h.closes}`);
    return { day, times: ranges.length > 0 ? ranges.join(", ") : null };
  });
}

function pageHref(query: Record<string, string>, page: number): string {
  const params = new URLSearchParams({ ...query, ...(page > 1 ? { page: String(page) } : {}) });
  const s = params.toString();
  return s ? `/businesses?${s}` : "/businesses";
}

/** /businesses (the searchable directory) and /businesses/{id} (one business, with its JSON-LD embedded). */
export async function businessPages(root: FastifyInstance, options: { dataset: BusinessDataset }): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { dataset } = options;
  const snapshot = () => dataset.fresh() ?? dataset.current();

  app.get("/businesses", { schema: { hide: true, querystring: DirectoryQuery } }, async (request, reply) => {
    const query = request.query;
    const snap = await snapshot();
    const q = query.q?.trim() ?? "";
    const category = query.category?.trim() ?? "";
    const schemaType = query.schemaType?.trim() ?? "";
    const types = typeOptions(snap);
    const qTooLong = q.length > MAX_Q;
    let results: Entry[] = [];
    // With words, the best matches come first (businesses/search.ts); otherwise the directory is in name order.
    const matches = q && !qTooLong ? await searchBusinessIds(app.civic.database.db, q) : null;
    if (!qTooLong) {
      results = snap.select(
        {
          ...(q ? { q } : {}),
          ...(category ? { category } : {}),
          ...(schemaType ? { schemaType } : {}),
        },
        matches,
      );
    }
    if (matches === null) results = [...results].sort((a, b) => a.record.name.localeCompare(b.record.name, "en-GB"));
    const pages = Math.max(1, Math.ceil(results.length / PAGE_SIZE));
    const page = Math.min(Math.max(Number.parseInt(query.page ?? "1", 10) || 1, 1), pages);
    const shown = results.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    const filtering = Boolean(q || category || schemaType);
    const kept: Record<string, string> = {
      ...(q && !qTooLong ? { q } : {}),
      ...(category ? { category } : {}),
      ...(schemaType ? { schemaType } : {}),
    };
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout
        ctx={ctx}
        title="Local businesses"
        description="Directory of local businesses with opening hours and contact details."
      >
        <h1>Local businesses</h1>
        <p class="lead">Shops, pubs, trades and services in and around the village, with opening hours and contacts.</p>
        <ErrorSummary problems={qTooLong ? [{ field: "q", message: Q_TOO_LONG }] : []} />
        <form method="get" action="/businesses" aria-label="Search the directory" class="directory-search">
          <div class={qTooLong ? "field has-error" : "field"}>
            <label for="q">Search</label>
            <span class="hint" id="q-hint">
              Words from a name, type, description, category or address, for example “plumber”, “pubs” or “High Street”.
            </span>
            {qTooLong ? (
              <span class="field-error" id="q-error">
                {Q_TOO_LONG}
              </span>
            ) : null}
            <input
              type="search"
              id="q"
              name="q"
              value={qTooLong ? "" : q}
              maxLength={MAX_Q}
              aria-describedby={qTooLong ? "q-hint q-error" : "q-hint"}
            />
          </div>
          <div class="field">
            <label for="category">Category</label>
            <select id="category" name="category">
              <option value="">All categories</option>
              {snap.categories.map((c) => (
                <option value={c} selected={c.toLowerCase() === category.toLowerCase()} key={c}>
                  {c}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="schemaType">Type of business</label>
            <select id="schemaType" name="schemaType">
              <option value="">All types</option>
              {types.map((t) => (
                <option value={t.name} selected={t.name.toLowerCase() === schemaType.toLowerCase()} key={t.name}>
                  {t.label}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">Search</button>
          {filtering ? (
            <p>
              <a href="/businesses">Clear the search and show every business</a>
            </p>
          ) : null}
        </form>

        <h2 id="results-heading">
          {results.length === 1 ? "1 business" : `${results.length} businesses`}
          {filtering ? " found" : ""}
        </h2>
        {results.length === 0 && !qTooLong ? <p>No business matches. Try fewer or different words.</p> : null}
        <ul class="cards directory-results" aria-labelledby="results-heading">
          {shown.map(({ record: b }) => (
            <li class="card" key={b.id}>
              <h3>
                <a href={`/businesses/${b.id}`}>{b.name}</a>
              </h3>
              <p class="muted">
                {b.category} · {typeLabel(b.schemaType)}
              </p>
              {b.address.streetAddress ? <p>{addressLine(b)}</p> : null}
            </li>
          ))}
        </ul>
        {pages > 1 ? (
          <nav class="pagination" aria-label="Result pages">
            <ul>
              {page > 1 ? (
                <li>
                  <a href={pageHref(kept, page - 1)} rel="prev">
                    Previous page
                  </a>
                </li>
              ) : null}
              <li>
                Page {page} of {pages}
              </li>
              {page < pages ? (
                <li>
                  <a href={pageHref(kept, page + 1)} rel="next">
                    Next page
                  </a>
                </li>
              ) : null}
            </ul>
          </nav>
        ) : null}
        <h2>Open data</h2>
        <p>
          The directory is open data: the whole dataset as <a href="/data/businesses-canonical.json">JSON-LD</a>, and an{" "}
          <a href="/api/v1/businesses">API</a> with the same filters as this page. See{" "}
          <a href="/developers">developers and open data</a>.
        </p>
      </Layout>,
      qTooLong ? 400 : 200,
    );
  });

  app.get("/businesses/:id", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const { id } = request.params;
    const snap = await snapshot();
    const entry = snap.byId.get(id);
    if (!entry) {
      if (snap.deleted.has(id)) throw new AppError("gone", "This business is no longer in the directory.");
      throw new AppError("not_found", "There is no business at this address.");
    }
    const b = entry.record;
    const config = app.civic.config;
    const ctx = pageContext(request);
    const jsonLd = jsonForScript(businessJsonLd(b, config.baseUrl));
    const days = hoursByDay(b.openingHours);
    const osm = b.geo
      ? `https://www.openstreetmap.org/?mlat=${b.geo.latitude}&mlon=${b.geo.longitude}#map=18/${b.geo.latitude}/${b.geo.longitude}`
      : null;
    return sendPage(
      reply,
      <Layout
        ctx={ctx}
        title={b.name}
        description={b.description ?? `${b.name}: ${b.category}`}
        styles={b.geo ? ["leaflet.css"] : []}
        scripts={b.geo ? ["business-map.js"] : []}
        head={<script type="application/ld+json" dangerouslySetInnerHTML={{ __html: jsonLd }} />}
      >
        <p>
          <a href="/businesses">All businesses</a>
        </p>
        <h1>{b.name}</h1>
        {b.description ? <p class="lead">{b.description}</p> : null}
        <dl class="business-details">
          <dt>Category</dt>
          <dd>
            <a href={`/businesses?category=${encodeURIComponent(b.category)}`}>{b.category}</a>
          </dd>
          <dt>Type of business</dt>
          <dd>{typeLabel(b.schemaType)}</dd>
          <dt>Address</dt>
          <dd>
            <address>
              {[b.address.streetAddress, b.address.addressLocality, b.address.addressRegion, b.address.postalCode]
                .filter((line): line is string => Boolean(line))
                .map((line, i) => (
                  <span key={i}>
                    {i > 0 ? <br /> : null}
                    {line}
                  </span>
                ))}
              {b.address.streetAddress || b.address.postalCode ? null : "Not known"}
            </address>
          </dd>
          {b.telephone ? (
            <>
              <dt>Telephone</dt>
              <dd>
                <a href={`tel:${b.telephone.replace(/[^+0-9]/g, "")}`}>{b.telephone}</a>
              </dd>
            </>
          ) : null}
          {b.email ? (
            <>
              <dt>Email</dt>
              <dd>
                <a href={`mailto:${b.email}`}>{b.email}</a>
              </dd>
            </>
          ) : null}
          {b.url ? (
            <>
              <dt>Website</dt>
              <dd>
                <a href={b.url} rel="noopener">
                  {b.url.replace(/^https?:\/\//, "")}
                </a>
              </dd>
            </>
          ) : null}
          {b.sameAs.length > 0 ? (
            <>
              <dt>Also on</dt>
              <dd>
                <ul>
                  {b.sameAs.map((s) => (
                    <li key={s}>
                      <a href={s} rel="noopener">
                        {s.replace(/^https?:\/\//, "")}
                      </a>
                    </li>
                  ))}
                </ul>
              </dd>
            </>
          ) : null}
        </dl>

        <h2>Opening hours</h2>
        {b.openingHours.length > 0 ? (
          <table class="opening-hours">
            <caption class="visually-hidden">Opening hours of {b.name}</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Open</th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{d.times ?? "Closed"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>Opening hours are not known. Please contact the business.</p>
        )}

        {b.geo ? (
          <>
            <h2>Location</h2>
            <div
              id="business-map"
              class="map"
              hidden
              data-lat={String(b.geo.latitude)}
              data-lng={String(b.geo.longitude)}
              data-name={b.name}
              data-tile-url={config.map.tileUrl}
              data-tile-zooms={config.map.zooms}
              data-attribution={config.map.tileAttribution}
            />
            <p>
              {b.name} is at {addressLine(b) || "the marked place"}.{" "}
              {osm ? (
                <a href={osm} rel="noopener">
                  View on OpenStreetMap
                </a>
              ) : null}
            </p>
          </>
        ) : null}
        <p class="muted">
          Something wrong or out of date? Tell the volunteers at{" "}
          <a href={`mailto:${app.civic.site.contactEmail}?subject=${encodeURIComponent(`Directory: ${b.name}`)}`}>
            {app.civic.site.contactEmail}
          </a>
          . Data: <a href={`/api/v1/businesses/${b.id}`}>this business as JSON-LD</a>.
        </p>
      </Layout>,
    );
  });
}
