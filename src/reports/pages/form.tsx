import { randomUUID } from "node:crypto";
import type { Category, Place } from "../../core/db/schema.js";
import type { FieldProblem } from "../../core/http/errors.js";
import { MAIL_CAP_NOTICE } from "../../core/mail/policy.js";
import { CsrfField } from "../../core/web/layout.js";
import { type AttributeDefinition, attributeField } from "../attributes.js";
import type { NearbyReport } from "../repository.js";
import { REPORT_LIMITS } from "../submit.js";
import { describedBy, ErrorSummary, FieldError } from "../../core/web/forms.js";

import { AttributeInput, errorFor, NearbyList, type ReportFormValues, summaryProblems } from "./form-fields.js";
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
  map: {
    tileUrl: string;
    zooms?: string | undefined;
    attribution: string;
    centre: { lat: number; lng: number };
    bounds: number[];
  };
  uploads: { maxPhotos: number; maxPhotoMb: number; maxPhotoBytes: number };
  villageName: string;
  councilName: string;
  /** Signed in: the report is filed under the account's own address, so the form asks for none (accounts/prefill.ts). */
  signedIn: boolean;
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
      <ErrorSummary problems={summaryProblems(problems, definitions)} />
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
            <span id="location-hint-map" hidden>
              Put a pin on the map, or choose the nearest street or landmark, or describe the place.
            </span>
            <span id="location-hint-text">Choose the nearest street or landmark, or describe the place.</span> One of
            these is enough.
          </p>
          <FieldError id="location-error" message={locationError} />
          <div
            id="report-map"
            class="map"
            hidden
            data-tile-url={p.map.tileUrl}
            data-tile-zooms={p.map.zooms}
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
          {p.signedIn ? (
            <p id="email-hint">
              You are signed in, so this report is filed under your account: its confirmation and updates go to your
              account’s email address. To report without an email address, sign out first.
            </p>
          ) : (
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
          )}
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
      <p>{MAIL_CAP_NOTICE}</p>
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
