import { ModeratedMark, ModerationNotice, ReportThisLink } from "../moderation/flag-pages.js";
import { randomUUID } from "node:crypto";
import type { ComponentChildren } from "preact";
import type { Category, Place, ReportStatus } from "../core/db/schema.js";
import type { FieldProblem } from "../core/http/errors.js";
import { CsrfField } from "../core/web/layout.js";
import { type AttributeDefinition, attributeField, MAX_STRING_LENGTH, MAX_TEXT_LENGTH } from "./attributes.js";
import { REPORT_STATUSES, STATUS_LABELS } from "./model.js";
import type { NearbyReport, PublicReport, PublicReportDetail } from "./repository.js";
import { REPORT_LIMITS } from "./submit.js";

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });
const dateTimeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

export function formatDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

function DateTime({ iso, withTime = false }: { iso: string; withTime?: boolean }) {
  return <time dateTime={iso}>{(withTime ? dateTimeFormat : dateFormat).format(new Date(iso))}</time>;
}

/** What the person typed, kept as text so a failed submission shows it again exactly. */
export interface ReportFormValues {
  category: string;
  title: string;
  description: string;
  lat: string;
  lng: string;
  place: string;
  locationText: string;
  attributes: Record<string, string[]>;
  email: string;
  name: string;
  shareContact: boolean;
}

export function emptyFormValues(category: string): ReportFormValues {
  return {
    category,
    title: "",
    description: "",
    lat: "",
    lng: "",
    place: "",
    locationText: "",
    attributes: {},
    email: "",
    name: "",
    shareContact: false,
  };
}

const FIELD_LABELS: Record<string, string> = {
  category: "Category",
  title: "Title",
  description: "Description",
  location: "Location",
  lat: "Map pin",
  lng: "Map pin",
  email: "Email address",
  name: "Name",
  phone: "Phone",
  photos: "Photos",
  form: "Form",
};

/** The element an error links to. */
export function fieldTarget(field: string, definitions: AttributeDefinition[]): string {
  const m = /^attribute\[(.+)\]$/.exec(field);
  if (m) {
    const def = definitions.find((d) => d.code === m[1]);
    const isList = def?.datatype === "singlevaluelist" || def?.datatype === "multivaluelist";
    return isList && !(def?.datatype === "singlevaluelist" && (def.values?.length ?? 0) > 6)
      ? `attr-${m[1]}-0`
      : `attr-${m[1]}`;
  }
  if (field === "location" || field === "lat" || field === "lng") return "place";
  return field === "form" ? "description" : field;
}

/** Turns a field problem into a sentence that makes sense on its own in the error summary. */
export function problemText(p: FieldProblem, definitions: AttributeDefinition[]): string {
  const first = p.message.charAt(0);
  if (first === first.toUpperCase() && first !== first.toLowerCase()) return p.message;
  const m = /^attribute\[(.+)\]$/.exec(p.field);
  const label = m
    ? (definitions.find((d) => d.code === m[1])?.description ?? "Answer")
    : (FIELD_LABELS[p.field] ?? p.field);
  if (p.message.startsWith("is required")) return m ? `Answer the question “${label}”` : `${label} is required`;
  return m ? `The answer to “${label}” ${p.message}` : `${label} ${p.message}`;
}

export function ErrorSummary({
  problems,
  definitions,
}: {
  problems: FieldProblem[];
  definitions: AttributeDefinition[];
}) {
  if (problems.length === 0) return null;
  return (
    <div class="error-summary" role="alert" aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">There is a problem</h2>
      <ul>
        {problems.map((p, i) => (
          <li key={`${p.field}-${i}`}>
            <a href={`#${fieldTarget(p.field, definitions)}`}>{problemText(p, definitions)}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

function errorFor(problems: FieldProblem[], definitions: AttributeDefinition[], ...fields: string[]) {
  const found = problems.filter((p) => fields.includes(p.field));
  if (found.length === 0) return null;
  return found.map((p) => problemText(p, definitions)).join(". ");
}

function FieldError({ id, message }: { id: string; message: string | null }) {
  if (!message) return null;
  return (
    <span class="field-error" id={id}>
      <span class="visually-hidden">Error: </span>
      {message}
    </span>
  );
}

const describedBy = (...ids: (string | false | null | undefined)[]) => ids.filter(Boolean).join(" ") || undefined;

/** Step 1: choose what kind of problem it is (works without JavaScript: a GET form). */
export function CategoryStep({ categories, selected }: { categories: Category[]; selected: string }) {
  const groups = new Map<string, Category[]>();
  for (const c of categories) {
    const g = c.group_name ?? "Other";
    groups.set(g, [...(groups.get(g) ?? []), c]);
  }
  return (
    <>
      <h1>Report an issue</h1>
      <p class="lead">Tell us about a local, non-urgent problem. It takes about two minutes.</p>
      <p class="notice">
        <strong>Not for emergencies.</strong> If someone is in danger, call 999.
      </p>
      <form method="get" action="/report">
        <fieldset>
          <legend>
            <h2 class="legend-heading">What is the problem?</h2>
          </legend>
          {[...groups.entries()].map(([group, items]) => (
            <div class="category-group" key={group}>
              <h3>{group}</h3>
              {items.map((c) => (
                <div class="choice" key={c.code}>
                  <input
                    type="radio"
                    name="category"
                    id={`category-${c.code}`}
                    value={c.code}
                    checked={selected === c.code}
                    required
                    aria-describedby={`category-${c.code}-hint`}
                  />
                  <label for={`category-${c.code}`}>
                    {c.name}
                    <span class="hint" id={`category-${c.code}-hint`}>
                      {c.description}
                    </span>
                  </label>
                </div>
              ))}
            </div>
          ))}
        </fieldset>
        <button type="submit">Continue</button>
      </form>
    </>
  );
}

function AttributeInput({ def, values, error }: { def: AttributeDefinition; values: string[]; error: string | null }) {
  const id = `attr-${def.code}`;
  const name = attributeField(def.code);
  const errorId = `${id}-error`;
  const hintId = def.datatypeDescription ? `${id}-hint` : null;
  const optional = def.required ? null : <span class="muted"> (optional)</span>;
  if (!def.variable) {
    return (
      <div class="notice attribute-info">
        <p>{def.description}</p>
      </div>
    );
  }
  const hint = def.datatypeDescription ? (
    <span class="hint" id={hintId ?? undefined}>
      {def.datatypeDescription}
    </span>
  ) : null;
  /** A labelled control with its hint and error, for every datatype but the radio and checkbox groups. */
  const labelled = (control: ComponentChildren) => (
    <div class={`field${error ? " has-error" : ""}`}>
      <label for={id}>
        {def.description}
        {optional}
      </label>
      {hint}
      <FieldError id={errorId} message={error} />
      {control}
    </div>
  );
  if (def.datatype === "singlevaluelist" || def.datatype === "multivaluelist") {
    const options = def.values ?? [];
    if (def.datatype === "singlevaluelist" && options.length > 6) {
      return labelled(
        <select
          id={id}
          name={name}
          required={def.required}
          aria-describedby={describedBy(hintId, error && errorId)}
          aria-invalid={error ? "true" : undefined}
        >
          <option value="">Choose…</option>
          {options.map((o) => (
            <option value={o.key} selected={values.includes(o.key)} key={o.key}>
              {o.name}
            </option>
          ))}
        </select>,
      );
    }
    const type = def.datatype === "singlevaluelist" ? "radio" : "checkbox";
    return (
      <fieldset class={error ? "has-error" : undefined} aria-describedby={describedBy(hintId, error && errorId)}>
        <legend>
          {def.description}
          {optional}
          {def.datatype === "multivaluelist" ? <span class="hint">Choose all that apply.</span> : null}
        </legend>
        {hint}
        <FieldError id={errorId} message={error} />
        {options.map((o, i) => (
          <div class="choice" key={o.key}>
            <input
              type={type}
              id={`${id}-${i}`}
              name={name}
              value={o.key}
              checked={values.includes(o.key)}
              required={type === "radio" && def.required}
            />
            <label for={`${id}-${i}`}>{o.name}</label>
          </div>
        ))}
      </fieldset>
    );
  }
  const common = {
    id,
    name,
    required: def.required,
    "aria-describedby": describedBy(hintId, error && errorId),
    "aria-invalid": error ? ("true" as const) : undefined,
  };
  let input: ComponentChildren;
  switch (def.datatype) {
    case "text":
      input = <textarea {...common} maxLength={MAX_TEXT_LENGTH} rows={4} value={values[0] ?? ""} />;
      break;
    case "number":
      input = <input {...common} type="text" inputMode="decimal" value={values[0] ?? ""} />;
      break;
    case "datetime":
      input = <input {...common} type="datetime-local" value={values[0] ?? ""} />;
      break;
    default:
      input = <input {...common} type="text" maxLength={MAX_STRING_LENGTH} value={values[0] ?? ""} />;
  }
  return labelled(input);
}

export function NearbyList({ items }: { items: NearbyReport[] }) {
  if (items.length === 0) return null;
  return (
    <>
      <h2 id="nearby-title">Already reported?</h2>
      <p>
        These reports of the same kind are close to the place you chose. If one of them is your problem, there is no
        need to report it again.
      </p>
      <ul>
        {items.map((r) => (
          <li key={r.reference}>
            <a href={`/reports/${r.reference}`}>{r.title}</a> ({r.statusLabel}, about {Math.round(r.distanceM)} m away,
            reported {formatDate(r.createdAt)})
          </li>
        ))}
      </ul>
    </>
  );
}

export interface ReportFormProps {
  csrfToken: string;
  category: Category;
  definitions: AttributeDefinition[];
  places: Place[];
  values: ReportFormValues;
  problems: FieldProblem[];
  nearby: NearbyReport[] | null;
  /** Photos added before the form came back with problems, kept so they need not be chosen again. */
  keptPhotos: { token: string; name: string }[];
  map: { tileUrl: string; attribution: string; centre: { lat: number; lng: number }; bounds: number[] };
  uploads: { maxPhotos: number; maxPhotoMb: number; maxPhotoBytes: number };
  villageName: string;
  councilName: string;
}

/** Step 2: the report form for one category. Every value is kept when the server sends it back with problems. */
export function ReportForm(p: ReportFormProps) {
  const { values, problems, definitions } = p;
  const err = (...fields: string[]) => errorFor(problems, definitions, ...fields);
  const titleError = err("title");
  const descriptionError = err("description");
  const locationError = err("location", "lat", "lng");
  const emailError = err("email");
  const nameError = err("name");
  const photosError = err("photos");
  const formError = err("form");
  const forwarded = !!p.category.department_email;
  return (
    <>
      <ErrorSummary problems={problems} definitions={definitions} />
      <h1>Report an issue: {p.category.name}</h1>
      <p>
        {p.category.description} <a href={`/report?change=${encodeURIComponent(p.category.code)}`}>Change category</a>
      </p>
      {formError ? <p class="field-error">{formError}</p> : null}
      <form method="post" action="/report" enctype="multipart/form-data" novalidate class="report-form">
        <CsrfField token={p.csrfToken} />
        {/* Idempotency-Key of this submission: a repeated post (double click, resend) gets the first answer. */}
        <input type="hidden" name="idempotency_key" value={randomUUID()} />
        <input type="hidden" name="category" value={p.category.code} />

        <fieldset class={locationError ? "has-error" : undefined}>
          <legend>
            <h2 class="legend-heading">Where is it?</h2>
          </legend>
          <p class="hint" id="location-hint">
            Put a pin on the map, or choose the nearest street or landmark, or describe the place. One of these is
            enough.
          </p>
          <FieldError id="location-error" message={locationError} />
          <div
            id="report-map"
            class="map"
            hidden
            data-tile-url={p.map.tileUrl}
            data-attribution={p.map.attribution}
            data-centre={`${p.map.centre.lat},${p.map.centre.lng}`}
            data-bounds={p.map.bounds.join(",")}
            data-category={p.category.code}
          />
          <p id="map-help" class="hint" hidden>
            Click or tap the map to put the pin where the problem is. With a keyboard: move the map with the arrow keys,
            then press Enter to drop the pin in the middle of the map (marked by a cross). When the pin has focus, the
            arrow keys move it.
          </p>
          <p id="map-status" class="map-status" role="status" aria-live="polite" />
          <input type="hidden" name="lat" id="lat" value={values.lat} />
          <input type="hidden" name="lng" id="lng" value={values.lng} />
          <div class="field">
            <label for="place">
              Nearest street or landmark <span class="muted">(optional)</span>
            </label>
            <select
              id="place"
              name="place"
              aria-describedby={describedBy("location-hint", locationError && "location-error")}
              aria-invalid={locationError ? "true" : undefined}
            >
              <option value="">Choose…</option>
              {(
                [
                  ["street", "Streets"],
                  ["landmark", "Landmarks"],
                ] as const
              ).map(([kind, label]) => (
                <optgroup label={label} key={kind}>
                  {p.places
                    .filter((pl) => pl.kind === kind)
                    .map((pl) => (
                      <option
                        value={pl.id}
                        selected={values.place === pl.id}
                        key={pl.id}
                        data-lat={pl.latitude}
                        data-lng={pl.longitude}
                      >
                        {pl.name}
                      </option>
                    ))}
                </optgroup>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="location_text">
              Describe the place <span class="muted">(optional)</span>
            </label>
            <span class="hint" id="location_text-hint">
              For example “outside 12 Church Lane” or “by the bench on the green”. At most {REPORT_LIMITS.locationText}{" "}
              characters.
            </span>
            <input
              type="text"
              id="location_text"
              name="location_text"
              maxLength={REPORT_LIMITS.locationText}
              value={values.locationText}
              aria-describedby="location_text-hint"
            />
          </div>
          <button type="submit" name="action" value="check" class="secondary" formnovalidate>
            Check for reports nearby
          </button>
        </fieldset>

        <section
          id="nearby"
          class="nearby"
          aria-live="polite"
          aria-labelledby={p.nearby?.length ? "nearby-title" : undefined}
        >
          {p.nearby && p.nearby.length > 0 ? <NearbyList items={p.nearby} /> : null}
          {p.nearby && p.nearby.length === 0 ? (
            <p>No open reports of this kind near there: yours will be the first.</p>
          ) : null}
        </section>

        {definitions.length > 0 ? (
          <fieldset>
            <legend>
              <h2 class="legend-heading">About the {p.category.name.toLowerCase()}</h2>
            </legend>
            {definitions.map((d) => (
              <AttributeInput
                key={d.code}
                def={d}
                values={values.attributes[d.code] ?? []}
                error={err(attributeField(d.code))}
              />
            ))}
          </fieldset>
        ) : null}

        <fieldset>
          <legend>
            <h2 class="legend-heading">What is wrong?</h2>
          </legend>
          <div class={`field${titleError ? " has-error" : ""}`}>
            <label for="title">Title</label>
            <span class="hint" id="title-hint">
              A short summary, for example “Streetlight out by the church”. At most {REPORT_LIMITS.title} characters.
            </span>
            <FieldError id="title-error" message={titleError} />
            <input
              type="text"
              id="title"
              name="title"
              required
              maxLength={REPORT_LIMITS.title}
              value={values.title}
              aria-describedby={describedBy("title-hint", titleError && "title-error")}
              aria-invalid={titleError ? "true" : undefined}
            />
          </div>
          <div class={`field${descriptionError ? " has-error" : ""}`}>
            <label for="description">Description</label>
            <span class="hint" id="description-hint">
              What is the problem, how big is it, and is it dangerous? Plain text, at most {REPORT_LIMITS.description}{" "}
              characters. Please do not include personal details: this is published.
            </span>
            <FieldError id="description-error" message={descriptionError} />
            <textarea
              id="description"
              name="description"
              required
              maxLength={REPORT_LIMITS.description}
              rows={6}
              value={values.description}
              aria-describedby={describedBy("description-hint", descriptionError && "description-error")}
              aria-invalid={descriptionError ? "true" : undefined}
            />
          </div>
          {p.uploads.maxPhotos > 0 ? (
            <div class={`field${photosError ? " has-error" : ""}`}>
              <label for="photos">
                Photos <span class="muted">(optional)</span>
              </label>
              <span class="hint" id="photos-hint">
                Up to {p.uploads.maxPhotos} photos, each up to {p.uploads.maxPhotoMb} MB: JPEG, PNG, WebP or HEIC. We
                remove the location and camera details stored inside photos before publishing them.
              </span>
              <FieldError id="photos-error" message={photosError} />
              {p.keptPhotos.length > 0 ? (
                <fieldset class="kept-photos">
                  <legend>Photos you already added</legend>
                  <span class="hint">They are kept. Untick a photo to leave it out.</span>
                  {p.keptPhotos.map((k, i) => (
                    <div class="choice" key={k.token}>
                      <input type="checkbox" id={`kept-photo-${i}`} name="kept_photo" value={k.token} checked />
                      <label for={`kept-photo-${i}`}>{k.name || `Photo ${i + 1}`}</label>
                    </div>
                  ))}
                </fieldset>
              ) : null}
              <input
                type="file"
                id="photos"
                name="photos"
                multiple
                accept="image/jpeg,image/png,image/webp,image/heic,image/heif,.heic,.heif"
                data-max-photos={p.uploads.maxPhotos}
                data-max-bytes={p.uploads.maxPhotoBytes}
                aria-describedby={describedBy("photos-hint", photosError && "photos-error")}
                aria-invalid={photosError ? "true" : undefined}
              />
            </div>
          ) : null}
        </fieldset>

        <fieldset>
          <legend>
            <h2 class="legend-heading">About you</h2>
          </legend>
          <div class="notice">
            <p>
              <strong>What is public:</strong> the title, description, category, location and photos of your report.
            </p>
            <p>
              <strong>What is never public:</strong> your email address and name. We use them only to send you a
              confirmation and updates about this report
              {forwarded ? `, and pass them to ${p.councilName} only if you tick the box below` : ""}.
            </p>
          </div>
          <div class={`field${emailError ? " has-error" : ""}`}>
            <label for="email">
              Email address <span class="muted">(optional)</span>
            </label>
            <span class="hint" id="email-hint">
              Leave this empty to report anonymously. With an email address you get a confirmation with your reference
              number.
            </span>
            <FieldError id="email-error" message={emailError} />
            <input
              type="email"
              id="email"
              name="email"
              autocomplete="email"
              spellcheck={false}
              maxLength={REPORT_LIMITS.email}
              value={values.email}
              aria-describedby={describedBy("email-hint", emailError && "email-error")}
              aria-invalid={emailError ? "true" : undefined}
            />
          </div>
          <div class={`field${nameError ? " has-error" : ""}`}>
            <label for="name">
              Your name <span class="muted">(optional, never published)</span>
            </label>
            <FieldError id="name-error" message={nameError} />
            <input
              type="text"
              id="name"
              name="name"
              autocomplete="name"
              maxLength={REPORT_LIMITS.name}
              value={values.name}
              aria-describedby={nameError ? "name-error" : undefined}
              aria-invalid={nameError ? "true" : undefined}
            />
          </div>
          {forwarded ? (
            <div class="choice">
              <input
                type="checkbox"
                id="share_contact"
                name="share_contact"
                value="yes"
                checked={values.shareContact}
                aria-describedby="share_contact-hint"
              />
              <label for="share_contact">
                {p.councilName} may contact me about this report
                <span class="hint" id="share_contact-hint">
                  We forward this report to the council. Tick this to include your name and email address, so they can
                  ask you questions. Otherwise they only see the report.
                </span>
              </label>
            </div>
          ) : null}
        </fieldset>

        <div class="hp" aria-hidden="true">
          <label for="website">Leave this field empty</label>
          <input type="text" id="website" name="website" tabIndex={-1} autocomplete="off" value="" />
        </div>

        <p>
          By sending this report you agree to the <a href="/terms">terms of use</a>.{" "}
          {forwarded
            ? `We forward it to ${p.councilName}; response times depend on the council.`
            : "Village volunteers look after this kind of problem."}
        </p>
        <button type="submit" name="action" value="send">
          Send report
        </button>
      </form>
    </>
  );
}

export function Confirmation({ reference, serviceNotice }: { reference: string; serviceNotice: string }) {
  return (
    <>
      <div class="success-panel">
        <h1>Thank you: your report has been sent</h1>
        <p>Your reference number is</p>
        <p class="reference">{reference}</p>
      </div>
      <p>{serviceNotice}</p>
      <p>If you gave an email address, a confirmation with this reference number is on its way to you.</p>
      <ul>
        <li>
          <a href={`/reports/${reference}`}>See your report</a> (it is public now)
        </li>
        <li>
          <a href={`/status?reference=${encodeURIComponent(reference)}`}>Check its status later</a> with the reference
          number
        </li>
        <li>
          <a href="/report">Report another issue</a>
        </li>
      </ul>
    </>
  );
}

function StatusTag({ status }: { status: ReportStatus }) {
  return <span class={`tag status-${status}`}>{STATUS_LABELS[status]}</span>;
}

function where(r: PublicReport): string | null {
  const parts = [r.placeName, r.locationText].filter((x): x is string => !!x);
  return parts.length > 0 ? parts.join(": ") : null;
}

export interface ListProps {
  items: PublicReport[];
  total: number;
  page: number;
  pages: number;
  categories: Category[];
  category: string;
  status: string;
  query: (page: number) => string;
  feedUrl: string;
  tiles: MapTiles;
}

/** The configured tile server, for the maps drawn by report-view-map.js. */
export interface MapTiles {
  tileUrl: string;
  attribution: string;
}

/** /reports: filters, a map of the reports on the page, and the list. */
export function ReportsList(p: ListProps) {
  const points = p.items
    .filter((r) => r.lat !== null && r.lng !== null)
    .map((r) => ({ lat: r.lat, lng: r.lng, title: r.title, url: `/reports/${r.reference}` }));
  const first = (p.page - 1) * 20 + 1;
  return (
    <>
      <h1>Reports</h1>
      <p class="lead">
        Every public report, newest first. <a href="/report">Report an issue</a>.
      </p>
      <form method="get" action="/reports" class="filters">
        <div class="field">
          <label for="filter-category">Category</label>
          <select id="filter-category" name="category">
            <option value="">All categories</option>
            {p.categories.map((c) => (
              <option value={c.code} selected={p.category === c.code} key={c.code}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status">
            <option value="">All statuses</option>
            {REPORT_STATUSES.map((s) => (
              <option value={s} selected={p.status === s} key={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Show reports</button>
      </form>
      <p>
        <a href={p.feedUrl}>Atom feed of these reports</a>
      </p>
      <p role="status">
        {p.total === 0
          ? "No reports match."
          : `Showing ${first} to ${first + p.items.length - 1} of ${p.total} report${p.total === 1 ? "" : "s"}.`}
      </p>
      {points.length > 0 ? (
        <div
          class="map report-view-map"
          hidden
          data-points={JSON.stringify(points)}
          data-label="Map of the reports listed on this page"
          data-tile-url={p.tiles.tileUrl}
          data-attribution={p.tiles.attribution}
        />
      ) : null}
      <ol class="report-list">
        {p.items.map((r) => (
          <li key={r.reference}>
            <h2>
              <a href={`/reports/${r.reference}`}>{r.title}</a>
            </h2>
            <p>
              <StatusTag status={r.status} /> {r.categoryName}
              {where(r) ? ` · ${where(r)}` : ""} · reported <DateTime iso={r.createdAt} />
            </p>
          </li>
        ))}
      </ol>
      {p.pages > 1 ? (
        <nav class="pagination" aria-label="Pages of reports">
          <ul>
            {p.page > 1 ? (
              <li>
                <a href={p.query(p.page - 1)} rel="prev">
                  Newer reports
                </a>
              </li>
            ) : null}
            <li>
              Page {p.page} of {p.pages}
            </li>
            {p.page < p.pages ? (
              <li>
                <a href={p.query(p.page + 1)} rel="next">
                  Older reports
                </a>
              </li>
            ) : null}
          </ul>
        </nav>
      ) : null}
    </>
  );
}

/** /reports/{reference}: everything public about one report. */
export function ReportDetail({ r, tiles }: { r: PublicReportDetail; tiles: MapTiles }) {
  const place = where(r);
  return (
    <>
      <p>
        <a href="/reports">All reports</a>
      </p>
      <h1>{r.title}</h1>
      <ModerationNotice moderatedAt={r.moderatedAt} visibility={r.visibility} />
      <p>
        <StatusTag status={r.status} />
      </p>
      <dl class="report-facts">
        <dt>Reference</dt>
        <dd>{r.reference}</dd>
        <dt>Category</dt>
        <dd>
          <a href={`/reports?category=${encodeURIComponent(r.categoryCode)}`}>{r.categoryName}</a>
        </dd>
        <dt>Reported</dt>
        <dd>
          <DateTime iso={r.createdAt} withTime />
        </dd>
        <dt>Last updated</dt>
        <dd>
          <DateTime iso={r.updatedAt} withTime />
        </dd>
        <dt>Location</dt>
        <dd>
          {place ?? (r.lat !== null ? "Marked on the map" : "Not given")}
          {r.lat !== null && r.lng !== null ? (
            <>
              {" "}
              (
              <span class="coords">
                {r.lat.toFixed(5)}, {r.lng.toFixed(5)}
              </span>
              ,{" "}
              <a href={`https://www.openstreetmap.org/?mlat=${r.lat}&mlon=${r.lng}#map=18/${r.lat}/${r.lng}`}>
                open in OpenStreetMap
              </a>
              )
            </>
          ) : null}
        </dd>
        {r.forwardedAt ? (
          <>
            <dt>Sent to the council</dt>
            <dd>
              {r.forwardedToName ?? "The council"}, <DateTime iso={r.forwardedAt} />. Response times depend on the
              council.
            </dd>
          </>
        ) : null}
      </dl>
      {r.lat !== null && r.lng !== null ? (
        <div
          class="map report-view-map"
          hidden
          data-points={JSON.stringify([{ lat: r.lat, lng: r.lng, title: r.title }])}
          data-label={`Map showing where “${r.title}” is`}
          data-tile-url={tiles.tileUrl}
          data-attribution={tiles.attribution}
        />
      ) : null}
      <h2>Description</h2>
      {r.description.split(/\n{2,}/).map((para, i) => (
        <p key={i} class="report-description">
          {para}
        </p>
      ))}
      {r.photos.length > 0 ? (
        <>
          <h2>Photos</h2>
          <ul class="report-photos">
            {r.photos.map((ph, i) => (
              <li key={ph.full}>
                <ModeratedMark visibility={ph.visibility} />
                <a href={ph.full}>
                  <img
                    src={ph.thumb}
                    alt={`Photo ${i + 1} of ${r.photos.length} for this report (opens the full size)`}
                    width={Math.round((ph.width * 400) / Math.max(ph.width, ph.height))}
                    height={Math.round((ph.height * 400) / Math.max(ph.width, ph.height))}
                    loading="lazy"
                  />
                </a>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h2>History</h2>
      <ol class="report-history">
        {r.history.map((u, i) => (
          <li key={i}>
            <ModeratedMark visibility={u.visibility} />
            <DateTime iso={u.at} withTime />: <strong>{i === 0 ? "Reported" : u.statusLabel}</strong>
            {u.note ? <p>{u.note}</p> : null}
            {u.note && i > 0 ? <ReportThisLink kind="update" id={String(u.id)} noun="update" /> : null}
          </li>
        ))}
      </ol>
      <p>Is this report about something dangerous? Not for emergencies: call 999 if someone is in danger.</p>
      <p>
        <ReportThisLink kind="report" id={r.reference} noun="report" />
      </p>
    </>
  );
}

export type StatusResult =
  | { kind: "none" }
  | { kind: "found"; report: PublicReport }
  | { kind: "unknown"; reference: string }
  | { kind: "invalid"; reference: string }
  | { kind: "not-public"; reference: string };

/** /status: look a report up by its reference number. */
export function StatusLookup({ value, result }: { value: string; result: StatusResult }) {
  const problem =
    result.kind === "unknown"
      ? `We could not find a report with the reference ${result.reference}. Check it against your confirmation email: references look like K7QM-3X9P.`
      : result.kind === "invalid"
        ? "Enter the reference number from your confirmation, for example K7QM-3X9P."
        : null;
  return (
    <>
      {problem ? (
        <div class="error-summary" role="alert" aria-labelledby="error-summary-title">
          <h2 id="error-summary-title">There is a problem</h2>
          <ul>
            <li>
              <a href="#reference">{problem}</a>
            </li>
          </ul>
        </div>
      ) : null}
      <h1>Check a report's status</h1>
      <form method="get" action="/status">
        <div class={`field${problem ? " has-error" : ""}`}>
          <label for="reference">Reference number</label>
          <span class="hint" id="reference-hint">
            It is on the confirmation page and in the confirmation email, for example K7QM-3X9P.
          </span>
          {problem ? <FieldError id="reference-error" message={problem} /> : null}
          <input
            type="text"
            id="reference"
            name="reference"
            value={value}
            maxLength={20}
            autocomplete="off"
            spellcheck={false}
            class="reference-input"
            aria-describedby={describedBy("reference-hint", problem && "reference-error")}
            aria-invalid={problem ? "true" : undefined}
          />
        </div>
        <button type="submit">Check status</button>
      </form>
      {result.kind === "found" ? (
        <section class="success-panel" aria-labelledby="status-result">
          <h2 id="status-result">
            {result.report.reference}: {result.report.statusLabel}
          </h2>
          <p>
            “{result.report.title}” ({result.report.categoryName}), reported {formatDate(result.report.createdAt)}, last
            updated {formatDate(result.report.updatedAt)}.
          </p>
          <p>
            <a href={`/reports/${result.report.reference}`}>See the report and its history</a>
          </p>
        </section>
      ) : null}
      {result.kind === "not-public" ? (
        <section class="notice" aria-labelledby="status-result">
          <h2 id="status-result">{result.reference}: not public</h2>
          <p>
            This report has been hidden or removed by the moderators, so its status is not shown. If it is yours and you
            think this is a mistake, contact the volunteers.
          </p>
        </section>
      ) : null}
    </>
  );
}
