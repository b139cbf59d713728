import { describedBy, ErrorSummary, Field, FieldError } from "../../core/web/forms.js";
import type { FieldProblem } from "../../core/http/errors.js";
import { Honeypot, TextArea } from "../../core/web/components.js";
import { CsrfField } from "../../core/web/layout.js";
import { MAX_RESIDENT_UPDATE_LENGTH } from "../resident-updates.js";

/**
 * "Add an update" on a public report page (issue 36): the text, an optional photo (the report form's photo pipeline)
 * and, for a visitor who is not signed in, an email address to confirm it with. Works without JavaScript; errors come back on the form's own page with what was typed.
 */
export function ResidentUpdateForm(p: {
  reference: string;
  csrfToken: string;
  signedIn: boolean;
  note?: string;
  email?: string;
  problems?: FieldProblem[];
  /** The largest photo accepted, in MB (config `uploads.maxPhotoBytes`); 0: photos are not accepted. */
  maxPhotoMb?: number;
  /** The page's own heading is the form's (its page); on the report page the form has its own. */
  heading?: boolean;
}) {
  const problems = p.problems ?? [];
  const limit = MAX_RESIDENT_UPDATE_LENGTH.toLocaleString("en-GB");
  const photoError = problems.find((x) => x.field === "update-photo")?.message;
  const photos = p.maxPhotoMb !== 0;
  return (
    <section class="resident-update" aria-labelledby={p.heading === false ? undefined : "update-title"}>
      {p.heading === false ? null : <h2 id="update-title">Add an update</h2>}
      <ErrorSummary problems={problems} />
      <form
        method="post"
        action={`/reports/${p.reference}/update`}
        enctype={photos ? "multipart/form-data" : undefined}
        novalidate
      >
        <CsrfField token={p.csrfToken} />
        <TextArea
          id="update-note"
          label="Your update"
          hint={`Have you seen it too, or has something changed? Up to ${limit} characters. It is shown on this page with the date, as “Update from a resident”, never with your name or address.`}
          value={p.note ?? ""}
          problems={problems}
          rows={5}
          maxLength={MAX_RESIDENT_UPDATE_LENGTH}
        />
        {photos ? (
          <div class={`field${photoError ? " has-error" : ""}`}>
            <label for="update-photo">
              Photo <span class="muted">(optional)</span>
            </label>
            <span class="hint" id="update-photo-hint">
              One photo{p.maxPhotoMb ? `, up to ${p.maxPhotoMb} MB` : ""}: JPEG, PNG, WebP or HEIC. It is shown with
              your update. We remove the location and camera details stored inside photos before publishing them.
            </span>
            <FieldError id="update-photo-error" message={photoError} />
            <input
              type="file"
              id="update-photo"
              name="update-photo"
              accept="image/jpeg,image/png,image/webp,image/heic,image/heif,.heic,.heif"
              aria-describedby={describedBy("update-photo-hint", photoError && "update-photo-error")}
              aria-invalid={photoError ? "true" : undefined}
            />
          </div>
        ) : null}
        {p.signedIn ? null : (
          <Field
            id="update-email"
            name="email"
            type="email"
            label="Your email address"
            hint="We send a link to publish your update: it waits until you press the button on the link's page. Your address is never shown."
            value={p.email ?? ""}
            problems={problems}
            autocomplete="email"
            maxLength={254}
          />
        )}
        <Honeypot id="update-website" />
        <p>
          <button type="submit">{p.signedIn ? "Publish the update" : "Send the update"}</button>
        </p>
      </form>
    </section>
  );
}
