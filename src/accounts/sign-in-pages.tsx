import { ErrorSummary, Field, PostForm } from "../core/web/forms.js";
import type { FieldProblem } from "../core/http/errors.js";

export interface SignInValues {
  email: string;
  passwordEmail: string;
  next: string;
}

/** /sign-in: email first (link + code), then a password, then a passkey (the last with JavaScript only). */
export function SignInPage(p: { csrfToken: string; values: SignInValues; problems: FieldProblem[]; notice?: string }) {
  const hidden = p.values.next ? { next: p.values.next } : undefined;
  return (
    <>
      <ErrorSummary problems={p.problems} />
      <h1>Sign in</h1>
      {p.notice ? (
        <p class="notice" role="status">
          {p.notice}
        </p>
      ) : null}
      <p>
        You do not need an account to report a problem or to read reports. With one you can list your reports, manage
        your personal data and, if you help run the platform, use the staff tools.
      </p>
      <h2>With your email address</h2>
      <p>We send you a message with a sign-in link and a code. If you have no account yet, signing in creates one.</p>
      <PostForm action="/sign-in/email" csrfToken={p.csrfToken} hidden={hidden}>
        <Field
          id="email"
          label="Email address"
          type="email"
          autocomplete="email"
          maxLength={254}
          value={p.values.email}
          problems={p.problems}
        />
        <button type="submit" class="button">
          Send me a sign-in link
        </button>
      </PostForm>

      <h2>With a password</h2>
      <p>If you have set a password on your account page, you can use it here.</p>
      <PostForm action="/sign-in/password" csrfToken={p.csrfToken} hidden={hidden}>
        <Field
          id="password-email"
          name="email"
          label="Email address"
          type="email"
          autocomplete="username"
          maxLength={254}
          value={p.values.passwordEmail}
          problems={p.problems}
        />
        <Field id="password" label="Password" type="password" autocomplete="current-password" problems={p.problems} />
        <button type="submit" class="button">
          Sign in with password
        </button>
      </PostForm>

      <section id="passkey-sign-in" hidden data-csrf={p.csrfToken} data-next={p.values.next}>
        <h2>With a passkey</h2>
        <p>If you have added a passkey on your account page, use it to sign in without typing anything.</p>
        <button type="button" class="button" id="passkey-sign-in-button">
          Sign in with a passkey
        </button>
        <p id="passkey-sign-in-status" role="status" aria-live="polite"></p>
      </section>
    </>
  );
}

/** After the message is sent: the same page whether or not the address has an account. */
export function CheckEmailPage(p: { csrfToken: string; handle: string; next: string; problems: FieldProblem[] }) {
  const hidden: Record<string, string> = { handle: p.handle, ...(p.next ? { next: p.next } : {}) };
  return (
    <>
      <ErrorSummary problems={p.problems} />
      <h1>Check your email</h1>
      <p>
        We have sent a message with a sign-in link and a 6-digit code to the address you gave. It may take a minute to
        arrive; look in your spam folder too. The link and the code work once, for 30 minutes.
      </p>
      <p>
        To protect inboxes, only a few such messages go to one address each hour. If no new one arrives, use the link in
        the latest message you have: it keeps working.
      </p>
      <h2>Type the code</h2>
      <PostForm action="/sign-in/code" csrfToken={p.csrfToken} hidden={hidden}>
        <Field
          id="code"
          label="Code from the message"
          hint="6 digits"
          autocomplete="one-time-code"
          inputMode="numeric"
          maxLength={20}
          className="code-input"
          problems={p.problems}
        />
        <button type="submit" class="button">
          Sign in
        </button>
      </PostForm>
      <p>
        No message? <a href="/sign-in">Ask for a new one</a>.
      </p>
    </>
  );
}

/** The page a sign-in link opens: only pressing the button (a POST) signs in, so mail scanners cannot. */
export function ConfirmLinkPage(p: {
  csrfToken: string;
  token: string | null;
  /** Where to go afterwards (a checked local path), carried as a hidden field. */
  next?: string;
  action: string;
  title: string;
  intro: string;
  button: string;
  expired: string;
}) {
  return (
    <>
      <h1>{p.title}</h1>
      {p.token ? (
        <>
          <p>{p.intro}</p>
          <PostForm
            action={p.action}
            csrfToken={p.csrfToken}
            hidden={{ token: p.token, ...(p.next ? { next: p.next } : {}) }}
          >
            <button type="submit" class="button">
              {p.button}
            </button>
          </PostForm>
        </>
      ) : (
        <>
          <p>{p.expired}</p>
          <p>
            <a href="/sign-in">Go to the sign-in page</a>
          </p>
        </>
      )}
    </>
  );
}

export function SuspendedPage({ reason, contactEmail }: { reason: string | null; contactEmail: string }) {
  return (
    <>
      <h1>This account is suspended</h1>
      <p>You cannot sign in because the moderators suspended this account for breaking the terms of use.</p>
      {reason ? (
        <p>
          <strong>Reason given:</strong> {reason}
        </p>
      ) : null}
      <p>
        If you think this is a mistake, you can appeal: write to <a href={`mailto:${contactEmail}`}>{contactEmail}</a>{" "}
        from the account's email address and say why. You can still report problems without signing in. See the{" "}
        <a href="/terms">terms of use</a>.
      </p>
    </>
  );
}
