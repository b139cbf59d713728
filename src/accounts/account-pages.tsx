import type { Account } from "../core/db/schema.js";
import type { FieldProblem } from "../core/http/errors.js";
import { ButtonForm, ErrorSummary, Field, PostForm, When } from "../core/web/forms.js";
import type { ConsentRecord } from "./personal-data.js";
import { PASSWORD_MIN } from "./passwords.js";

export interface SessionRow {
  id: number;
  device: string;
  created_at: string;
  last_seen_at: string;
}

export interface PasskeyRow {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface AccountPageProps {
  csrfToken: string;
  account: Account;
  currentSessionId: number;
  sessions: SessionRow[];
  passkeys: PasskeyRow[];
  consents: ConsentRecord[];
  problems: FieldProblem[];
  values: { name: string; newEmail: string; addEmail: string };
  notice?: string;
}

/** /account: everything about the account, each part editable on the page. */
export function AccountPage(p: AccountPageProps) {
  const { account } = p;
  return (
    <>
      <ErrorSummary problems={p.problems} />
      <h1>Your account</h1>
      {p.notice ? (
        <p class="notice notice-success" role="status">
          {p.notice}
        </p>
      ) : null}
      <ul>
        <li>
          <a href="/account/reports">Your reports</a>
        </li>
        <li>
          <a href="/account/data">Download your data</a>
        </li>
        <li>
          <a href="/account/delete">Delete your account</a>
        </li>
      </ul>
      <ButtonForm action="/sign-out" csrfToken={p.csrfToken} label="Sign out" clearsDevice />

      <h2>Name</h2>
      <PostForm action="/account/name" csrfToken={p.csrfToken}>
        <Field
          id="name"
          label="Your name"
          hint="Shown only to you and, on your own reports, to the staff. Leave empty to be shown by your email address."
          autocomplete="name"
          maxLength={100}
          value={p.values.name}
          problems={p.problems}
        />
        <button type="submit" class="button">
          Save name
        </button>
      </PostForm>

      <h2>Email address</h2>
      <p>
        You sign in with <strong>{account.email}</strong>. To change it, give the new address: we send a link to it, and
        the old address keeps working until you open that link.
      </p>
      <PostForm action="/account/email" csrfToken={p.csrfToken}>
        <Field
          id="new-email"
          name="email"
          label="New email address"
          type="email"
          autocomplete="email"
          maxLength={254}
          value={p.values.newEmail}
          problems={p.problems}
        />
        <button type="submit" class="button">
          Send a confirmation link
        </button>
      </PostForm>

      <h2>Add another address of yours</h2>
      <p>
        If you also use another address here (a report or a sign-up made under it), add it: your data download and
        erasure then include what is held under it. We send a link to that address, and it is added only when you open
        the link and press its button.
      </p>
      <PostForm action="/account/addresses" csrfToken={p.csrfToken}>
        <Field
          id="add-email"
          name="email"
          label="Another address of yours"
          type="email"
          autocomplete="off"
          maxLength={254}
          value={p.values.addEmail}
          problems={p.problems}
        />
        <button type="submit" class="button">
          Send a link to that address
        </button>
      </PostForm>

      <h2>Password</h2>
      <p>
        {account.password_hash
          ? "You have a password. You can change it or remove it; you can always sign in with a link by email."
          : "You have no password: you sign in with a link by email or a passkey. A password is optional."}
      </p>
      <PostForm action="/account/password" csrfToken={p.csrfToken}>
        <input
          type="text"
          name="username"
          value={account.email}
          autocomplete="username"
          aria-label="Email address"
          hidden
          readOnly
        />
        <Field
          id="new-password"
          name="password"
          label={account.password_hash ? "New password" : "Password"}
          type="password"
          autocomplete="new-password"
          hint={`At least ${PASSWORD_MIN} characters. Not your email address, and not a common password.`}
          problems={p.problems}
        />
        <button type="submit" class="button">
          {account.password_hash ? "Change password" : "Set password"}
        </button>
      </PostForm>
      {account.password_hash ? (
        <ButtonForm action="/account/password/remove" csrfToken={p.csrfToken} label="Remove password" secondary />
      ) : null}

      <h2>Passkeys</h2>
      <p>A passkey lets you sign in with your phone, computer or security key instead of a password.</p>
      {p.passkeys.length === 0 ? (
        <p>You have no passkeys.</p>
      ) : (
        <ul>
          {p.passkeys.map((k) => (
            <li key={k.id}>
              {k.name}, added <When iso={k.created_at} />
              {k.last_used_at ? (
                <>
                  , last used <When iso={k.last_used_at} />
                </>
              ) : null}{" "}
              <ButtonForm
                action="/account/passkeys/delete"
                csrfToken={p.csrfToken}
                hidden={{ id: k.id }}
                label={`Remove passkey “${k.name}”`}
                secondary
              />
            </li>
          ))}
        </ul>
      )}
      <div id="passkey-register" hidden data-csrf={p.csrfToken}>
        <button type="button" class="button" id="passkey-register-button">
          Add a passkey
        </button>
        <p id="passkey-register-status" role="status" aria-live="polite"></p>
      </div>
      <noscript>
        <p>Adding a passkey needs JavaScript.</p>
      </noscript>

      <h2>Where you are signed in</h2>
      <table class="sessions-table stacked">
        <caption class="visually-hidden">Your sessions</caption>
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">Signed in</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span class="visually-hidden">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {p.sessions.map((s) => (
            <tr key={s.id}>
              <td data-label="Device">
                {s.device}
                {s.id === p.currentSessionId ? " (this device)" : ""}
              </td>
              <td data-label="Signed in">
                <When iso={s.created_at} />
              </td>
              <td data-label="Last used">
                <When iso={s.last_seen_at} />
              </td>
              <td>
                <ButtonForm
                  action="/account/sessions/end"
                  csrfToken={p.csrfToken}
                  hidden={{ id: String(s.id) }}
                  label={s.id === p.currentSessionId ? "Sign out here" : `Sign out ${s.device}`}
                  clearsDevice={s.id === p.currentSessionId}
                  secondary
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ButtonForm action="/account/sessions/end-all" csrfToken={p.csrfToken} label="Sign out everywhere" clearsDevice />

      <h2>Consents</h2>
      <ConsentList csrfToken={p.csrfToken} consents={p.consents} action="/account/consents/withdraw" />
    </>
  );
}

export function ConsentList(p: {
  csrfToken: string;
  consents: ConsentRecord[];
  action: string;
  hidden?: Record<string, string>;
}) {
  if (p.consents.length === 0) return <p>You have not given any consents that are still in force.</p>;
  return (
    <ul>
      {p.consents.map((c) => (
        <li key={c.id}>
          {c.label} (given <When iso={c.givenAt} />){" "}
          <ButtonForm
            action={p.action}
            csrfToken={p.csrfToken}
            hidden={{ ...p.hidden, consent: c.id }}
            label={
              <>
                Withdraw<span class="visually-hidden">: {c.label}</span>
              </>
            }
            secondary
          />
        </li>
      ))}
    </ul>
  );
}
