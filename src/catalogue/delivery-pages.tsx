import type { FieldProblem } from "../core/http/errors.js";
import { HintAndError, hintAndErrorIds } from "../core/web/forms.js";
import { CsrfField } from "../core/web/layout.js";
import { type ConnectionCheck, DEFAULT_STATUS_TABLE_TEXT, type DeliverySettings } from "./delivery.js";
import { ActionForm, Field } from "./form-parts.js";

/** What the delivery form shows: the stored settings, or what was posted when it is refused. */
export interface DeliveryFormValues {
  method: string;
  endpoint: string;
  jurisdiction: string;
  /** Our category code → the council's service code, as typed. */
  services: Record<string, string>;
  /** The council's attribute code = our question's code, one per line. */
  attributes: string;
  /** The council's status word = our status (or ignore), one per line, over the default table. */
  statuses: string;
}

export const deliveryValues = (s: DeliverySettings): DeliveryFormValues => ({
  method: s.method,
  endpoint: s.endpoint,
  jurisdiction: s.jurisdiction,
  services: s.services,
  attributes: Object.entries(s.attributes)
    .map(([theirs, ours]) => `${theirs}=${ours}`)
    .join("\n"),
  statuses: s.statuses,
});

export interface DeliverySectionProps {
  departmentId: number;
  email: string;
  csrfToken: string;
  settings: DeliverySettings;
  values: DeliveryFormValues;
  problems: FieldProblem[];
  check?: ConnectionCheck | undefined;
}

/** The part of /admin/departments/:id that says how reports reach the department (issue 37), and its check. */
export function DeliverySection(p: DeliverySectionProps) {
  const { settings, values, problems } = p;
  const base = `/admin/departments/${p.departmentId}`;
  const methodError = problems.find((x) => x.field === "method")?.message ?? null;
  const servicesError = problems.find((x) => x.field === "services")?.message ?? null;
  const servicesHint =
    "The council’s code for the service each category’s reports go to (the check below lists the council’s codes). " +
    "A category without one cannot be sent by Open311: its reports are shown to staff as not sent.";
  return (
    <section aria-labelledby="delivery-heading">
      <h2 id="delivery-heading">How reports reach this department</h2>
      <p>
        Now:{" "}
        {settings.method === "open311" ? (
          <>
            through the council’s Open311 service at <code>{settings.endpoint}</code>
            {settings.hasKey ? ", with an API key" : ", without an API key"}.
          </>
        ) : (
          <>by email to {p.email}.</>
        )}
      </p>
      <form method="post" action={`${base}/delivery`}>
        <CsrfField token={p.csrfToken} />
        <fieldset id="admin-method" aria-describedby={hintAndErrorIds("admin-method", null, methodError)}>
          <legend>Send its new reports</legend>
          <HintAndError id="admin-method" error={methodError} />
          <p class="choice">
            <input
              type="radio"
              id="admin-method-email"
              name="method"
              value="email"
              checked={values.method !== "open311"}
            />
            <label for="admin-method-email">By email, to the forwarding address above</label>
          </p>
          <p class="choice">
            <input
              type="radio"
              id="admin-method-open311"
              name="method"
              value="open311"
              checked={values.method === "open311"}
            />
            <label for="admin-method-open311">Through the council’s Open311 service (GeoReport v2)</label>
          </p>
        </fieldset>
        <h3>Open311 settings</h3>
        <p>Used when Open311 is chosen; kept when you switch back to email.</p>
        <Field
          name="endpoint"
          label="Endpoint base URL"
          hint="Where the council’s services.json and requests.json are, e.g. https://council.example.org/open311/v2/"
          problems={problems}
          control={(c) => <input {...c} type="url" maxLength={500} value={values.endpoint} spellcheck={false} />}
        />
        <Field
          name="api_key"
          label="API key"
          hint={
            settings.hasKey
              ? "A key is stored. Leave this empty to keep it. It is never shown again."
              : "No key is stored. The council gives you one; it is stored sealed and never shown again."
          }
          problems={problems}
          control={(c) => <input {...c} type="password" maxLength={500} autocomplete="new-password" />}
        />
        {settings.hasKey ? (
          <p class="choice">
            <input type="checkbox" id="admin-remove_key" name="remove_key" value="yes" />
            <label for="admin-remove_key">Remove the stored key</label>
          </p>
        ) : null}
        <Field
          name="jurisdiction"
          label="jurisdiction_id (optional)"
          hint="Only if the council’s endpoint serves several councils and asks for it."
          problems={problems}
          control={(c) => <input {...c} maxLength={200} value={values.jurisdiction} spellcheck={false} />}
        />
        <fieldset
          id="admin-services"
          tabIndex={-1}
          aria-describedby={hintAndErrorIds("admin-services", servicesHint, servicesError)}
        >
          <legend>Council service code for each of our categories</legend>
          <HintAndError id="admin-services" hint={servicesHint} error={servicesError} />
          {settings.categories.length === 0 ? <p>No category is forwarded to this department yet.</p> : null}
          {settings.categories.map((c) => {
            const id = `admin-service-${c.code}`;
            const error = problems.find((x) => x.field === `service-${c.code}`)?.message ?? null;
            return (
              <p class="field" key={c.code}>
                <label for={id}>
                  {c.name} (<code>{c.code}</code>)
                </label>
                <HintAndError id={id} error={error} />
                <input
                  id={id}
                  name={`service:${c.code}`}
                  maxLength={100}
                  value={values.services[c.code] ?? ""}
                  spellcheck={false}
                  aria-describedby={hintAndErrorIds(id, null, error)}
                  aria-invalid={error || servicesError ? "true" : undefined}
                />
              </p>
            );
          })}
        </fieldset>
        <Field
          name="attributes"
          label="Council questions answered by ours (optional)"
          hint="One per line: the council’s attribute code, =, our question’s code. E.g. lamp_id=lamp_post_number"
          problems={problems}
          control={(c) => (
            <textarea {...c} rows={4} maxLength={20000} spellcheck={false}>
              {values.attributes}
            </textarea>
          )}
        />
        <Field
          name="statuses"
          label="The council’s statuses as ours (optional)"
          hint={`One per line: the council’s status, =, ours (or ignore: its notes only). Over the default table: ${DEFAULT_STATUS_TABLE_TEXT.replace(/\n/g, ", ")}.`}
          problems={problems}
          control={(c) => (
            <textarea {...c} rows={4} maxLength={5000} spellcheck={false}>
              {values.statuses}
            </textarea>
          )}
        />
        <p>
          <button type="submit">Save how reports are sent</button>
        </p>
      </form>
      <h3 id="check-heading">Check the connection</h3>
      <p>
        Reads the council’s list of services with the saved settings (save your changes first) and shows which of our
        categories map to one, which of the council’s services nothing maps to, and which questions the council requires
        that none of ours answers.
      </p>
      <ActionForm action={`${base}/check#check-result`} csrfToken={p.csrfToken}>
        Check the connection
      </ActionForm>
      {p.check ? <CheckResult check={p.check} /> : null}
    </section>
  );
}

const VERDICT = (c: ConnectionCheck["categories"][number]) =>
  !c.serviceCode ? "Not mapped" : c.offered ? "Maps" : "Mapped, but the council does not offer it";

function CheckResult({ check }: { check: ConnectionCheck }) {
  if (!check.ok) {
    return (
      <div class="notice notice-error" id="check-result" role="status">
        <h4>The check failed</h4>
        <p>Could not read the council’s services: {check.error ?? "unknown reason"}</p>
      </div>
    );
  }
  return (
    <div id="check-result" role="status">
      <h4>The council offers {check.services.length === 1 ? "1 service" : `${check.services.length} services`}</h4>
      <table class="stacked">
        <caption>Our categories</caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col">Council service code</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {check.categories.map((c) => (
            <tr key={c.code}>
              <td data-label="Category">
                {c.name} (<code>{c.code}</code>)
              </td>
              <td data-label="Council service code">{c.serviceCode ? <code>{c.serviceCode}</code> : "None"}</td>
              <td data-label="Result">{VERDICT(c)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h4>Council services no category maps to</h4>
      {check.unmappedServices.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {check.unmappedServices.map((s) => (
            <li key={s.code}>
              <code>{s.code}</code>
              {s.name ? `: ${s.name}` : ""}
            </li>
          ))}
        </ul>
      )}
      <h4>Required council questions none of ours answers</h4>
      {check.unmappedAttributes.length === 0 && check.definitionErrors.length === 0 ? <p>None.</p> : null}
      {check.unmappedAttributes.length > 0 ? (
        <ul>
          {check.unmappedAttributes.map((a) => (
            <li key={`${a.service} ${a.code}`}>
              <code>{a.code}</code> of service <code>{a.service}</code>
              {a.description ? `: ${a.description}` : ""}
            </li>
          ))}
        </ul>
      ) : null}
      {check.definitionErrors.length > 0 ? (
        <ul>
          {check.definitionErrors.map((d) => (
            <li key={d.service}>
              The questions of service <code>{d.service}</code> could not be read: {d.error}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
