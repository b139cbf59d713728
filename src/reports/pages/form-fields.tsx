import type { ComponentChildren } from "preact";
import type { Category } from "../../core/db/schema.js";
import type { FieldProblem } from "../../core/http/errors.js";
import { type AttributeDefinition, attributeField, MAX_STRING_LENGTH, MAX_TEXT_LENGTH } from "../attributes.js";
import type { NearbyReport } from "../repository.js";
import { describedBy, FieldError } from "../../core/web/forms.js";
import { formatDate } from "./common.js";

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

/** The problems as the error summary shows them: each links to its input and reads on its own. */
export function summaryProblems(problems: FieldProblem[], definitions: AttributeDefinition[]): FieldProblem[] {
  return problems.map((p) => ({ field: fieldTarget(p.field, definitions), message: problemText(p, definitions) }));
}

export function errorFor(problems: FieldProblem[], definitions: AttributeDefinition[], ...fields: string[]) {
  const found = problems.filter((p) => fields.includes(p.field));
  if (found.length === 0) return null;
  return found.map((p) => problemText(p, definitions)).join(". ");
}

/** Step 1: choose what kind of problem it is (works without JavaScript: a GET form). */
export function CategoryStep({
  categories,
  selected,
  spot = null,
}: {
  categories: Category[];
  selected: string;
  /** A spot chosen on a map ("Report a problem here"), carried to the form. */
  spot?: { lat: number; lng: number } | null;
}) {
  const groups = new Map<string, Category[]>();
  for (const c of categories) {
    const g = c.group_name ?? "Other";
    groups.set(g, [...(groups.get(g) ?? []), c]);
  }
  return (
    <>
      <h1>Report an issue</h1>
      <p class="lead">Tell us about a local, non-urgent problem. It takes about two minutes.</p>
      <p class="notice notice-warning">
        <strong>Not for emergencies.</strong> If someone is in danger, call 999.
      </p>
      <form method="get" action="/report">
        {spot ? (
          <>
            <p>The place you chose on the map will be marked on the form.</p>
            <input type="hidden" name="lat" value={String(spot.lat)} />
            <input type="hidden" name="lng" value={String(spot.lng)} />
          </>
        ) : null}
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

export function AttributeInput({
  def,
  values,
  error,
}: {
  def: AttributeDefinition;
  values: string[];
  error: string | null;
}) {
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
