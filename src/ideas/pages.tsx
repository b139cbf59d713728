import { ErrorSummary, Field, FieldError } from "../core/web/forms.js";
import type { FieldProblem } from "../core/http/errors.js";
import { FormProblem, Honeypot, Select, TextArea } from "../core/web/components.js";
import { CsrfField } from "../core/web/layout.js";
import { IDEA_CATEGORIES, type IdeaInput } from "./service.js";

export const emptyIdea = (): IdeaInput => ({
  title: "",
  description: "",
  category: "",
  place: "",
  locationText: "",
  email: "",
});

/** The "share an idea" form: works without JavaScript; the photo is optional. */
export function IdeaForm(p: {
  values: IdeaInput;
  problems: FieldProblem[];
  csrfToken: string;
  places: { id: string; name: string }[];
  signedIn: boolean;
}) {
  const { values: v, problems } = p;
  return (
    <>
      <h1>Share an idea</h1>
      <p class="lead">A bench, a path, a litter-pick, a festival: what would make the village better?</p>
      <ErrorSummary problems={problems} />
      <FormProblem problems={problems} />
      <form method="post" action="/ideas" enctype="multipart/form-data" novalidate>
        <CsrfField token={p.csrfToken} />
        <Field id="title" label="Title" value={v.title} problems={problems} maxLength={120} />
        <TextArea id="description" label="Your idea" value={v.description} problems={problems} maxLength={5000} />
        <Select
          id="category"
          label="Category (optional)"
          value={v.category}
          options={IDEA_CATEGORIES}
          problems={problems}
          empty="No category"
        />
        <Select
          id="place"
          label="Place (optional)"
          value={v.place}
          options={p.places.map((x) => ({ value: x.id, label: x.name }))}
          problems={problems}
          empty="No particular place"
        />
        <Field
          id="location_text"
          label="Or describe the place (optional)"
          value={v.locationText}
          problems={problems}
          maxLength={200}
        />
        <div class="field">
          <label for="photo">Photo (optional)</label>
          <span class="hint" id="photo-hint">
            A JPEG, PNG, WebP or HEIC photo. Location and camera details are removed.
          </span>
          <FieldError id="photo-error" message={problems.find((x) => x.field === "photo")?.message} />
          <input type="file" id="photo" name="photo" accept="image/*" aria-describedby="photo-hint" />
        </div>
        {p.signedIn ? null : (
          <Field
            id="email"
            type="email"
            label="Your email address"
            hint="We send a link to confirm the idea before it is published. Your address is never shown."
            value={v.email}
            problems={problems}
            autocomplete="email"
            maxLength={254}
          />
        )}
        <Honeypot />
        <p>
          Your idea, but never your name or email address, is published under the <a href="/terms">terms of use</a>.
        </p>
        <button type="submit">Share idea</button>
      </form>
    </>
  );
}
