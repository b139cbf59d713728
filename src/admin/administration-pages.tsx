import type { FieldProblem } from "../core/http/errors.js";
import { ErrorSummary } from "../core/web/forms.js";
import { CsrfField } from "../core/web/layout.js";
import type { ApiKeyListing, CreatedApiKey } from "../open311/index.js";

export interface RolesProps {
  staff: { id: string; email: string; name: string | null; role: string }[];
  csrfToken: string;
  problems: FieldProblem[];
  values: { email?: string; role?: string; reason?: string };
  notice?: boolean;
}

/** /admin/staff: who has a staff role; grant or revoke one (admins only). */
export function RolesPage({ staff, csrfToken, problems, values, notice }: RolesProps) {
  return (
    <>
      <h1>Staff roles</h1>
      <ErrorSummary problems={problems} staffPrefix="admin-" />
      {notice ? (
        <p class="notice notice-success" role="status">
          The role is changed.
        </p>
      ) : null}
      <table class="stacked">
        <caption class="visually-hidden">Staff accounts</caption>
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Role</th>
          </tr>
        </thead>
        <tbody>
          {staff.map((s) => (
            <tr key={s.id}>
              <td data-label="Account">{s.name ? `${s.name} (${s.email})` : s.email}</td>
              <td data-label="Role">{s.role}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Change a role</h2>
      <p>The account must exist: the person signs in once first. Choose “resident” to take a staff role away.</p>
      <form method="post" action="/admin/staff">
        <CsrfField token={csrfToken} />
        <p>
          <label for="admin-email">Email address of the account</label>
          <input id="admin-email" name="email" type="email" required maxLength={254} value={values.email ?? ""} />
        </p>
        <p>
          <label for="admin-role">Role</label>
          <select id="admin-role" name="role">
            {["moderator", "admin", "resident"].map((r) => (
              <option value={r} key={r} selected={values.role === r}>
                {r}
              </option>
            ))}
          </select>
        </p>
        <p>
          <label for="admin-reason">Reason (for the audit log)</label>
          <input id="admin-reason" name="reason" maxLength={500} value={values.reason ?? ""} />
        </p>
        <p>
          <button type="submit">Change the role</button>
        </p>
      </form>
    </>
  );
}

export interface ApiKeysProps {
  keys: ApiKeyListing[];
  csrfToken: string;
  problems: FieldProblem[];
  created?: CreatedApiKey;
  revoked?: boolean;
}

/** /admin/api-keys: Open311 API keys (admins only). A new key is shown once, on the page that created it. */
export function ApiKeysPage({ keys, csrfToken, problems, created, revoked }: ApiKeysProps) {
  return (
    <>
      <h1>Open311 API keys</h1>
      <ErrorSummary problems={problems} staffPrefix="admin-" />
      {created ? (
        <div class="notice notice-success" role="status">
          <p>
            The key for “{created.name}” is: <code>{created.key}</code>
          </p>
          <p>Copy it now: it is shown only this once and is not stored.</p>
        </div>
      ) : null}
      {revoked ? (
        <p class="notice notice-success" role="status">
          The key is revoked.
        </p>
      ) : null}
      <table class="stacked">
        <caption class="visually-hidden">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Starts with</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id}>
              <td data-label="Name">{k.name}</td>
              <td data-label="Starts with">
                <code>{k.prefix}</code>
              </td>
              <td data-label="Created">{k.created_at.slice(0, 10)}</td>
              <td data-label="Last used">{k.last_used_at ? k.last_used_at.slice(0, 10) : "Never"}</td>
              <td data-label="State">
                {k.revoked_at ? (
                  `Revoked ${k.revoked_at.slice(0, 10)}`
                ) : (
                  <form method="post" action={`/admin/api-keys/${k.id}/revoke`}>
                    <CsrfField token={csrfToken} />
                    <button type="submit">
                      Revoke<span class="visually-hidden"> the key “{k.name}”</span>
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Create a key</h2>
      <form method="post" action="/admin/api-keys">
        <CsrfField token={csrfToken} />
        <p>
          <label for="admin-name">Who or what uses it</label>
          <input id="admin-name" name="name" required maxLength={100} />
        </p>
        <p>
          <button type="submit">Create the key</button>
        </p>
      </form>
    </>
  );
}
