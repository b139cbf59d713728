import type { ReportStatus } from "../core/db/schema.js";
import { isPublic } from "../core/visibility.js";
import type { FieldProblem } from "../core/http/errors.js";
import { ReportThumbnail, STATUS_LABELS, type Thumbnail } from "../reports/index.js";
import { ConsentList } from "./account-pages.js";
import { ErrorSummary, Field, FieldError, PostForm, When } from "../core/web/forms.js";
import type { ConsentRecord } from "./personal-data.js";

export interface MyReport {
  reference: string;
  title: string;
  category: string;
  status: ReportStatus;
  visibility: string;
  created_at: string;
  placeInWords: string | null;
  /** Only when the report and a photo of it are public. */
  thumbnail: Thumbnail | null;
}

export function MyReportsPage({ reports }: { reports: MyReport[] }) {
  return (
    <>
      <h1>Your reports</h1>
      <p>
        The reports you made while signed in, and earlier reports made with your email address. Only you see this list;
        the reports themselves are public without your name or address.
      </p>
      {reports.length === 0 ? (
        <p>
          You have no reports yet. <a href="/report">Report an issue</a>.
        </p>
      ) : (
        <table class="sessions-table stacked">
          <caption class="visually-hidden">Your reports, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Reference</th>
              <th scope="col">Report</th>
              <th scope="col">Category</th>
              <th scope="col">Where</th>
              <th scope="col">Status</th>
              <th scope="col">Made</th>
            </tr>
          </thead>
          <tbody>
            {reports.map((r) => (
              <tr key={r.reference}>
                <td data-label="Reference">{r.reference}</td>
                <td data-label="Report">
                  {isPublic(r.visibility) ? <ReportThumbnail thumbnail={r.thumbnail} title={r.title} /> : null}
                  {isPublic(r.visibility) ? (
                    <a href={`/reports/${r.reference}`}>{r.title}</a>
                  ) : (
                    `${r.title} (not public)`
                  )}
                </td>
                <td data-label="Category">{r.category}</td>
                <td data-label="Where">{r.placeInWords ?? "Not given"}</td>
                <td data-label="Status">{STATUS_LABELS[r.status]}</td>
                <td data-label="Made">
                  <When iso={r.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The download and erase choices, for account holders (/account/data, /account/delete) and for /my-data. */
export function DataChoices(p: {
  csrfToken: string;
  heading: string;
  downloadAction: string;
  eraseAction: string;
  withdrawAction: string;
  hidden?: Record<string, string>;
  consents: ConsentRecord[];
  reportCount: number;
  hasAccount: boolean;
}) {
  return (
    <>
      <h1>{p.heading}</h1>
      <p>
        We hold {p.reportCount === 1 ? "1 report" : `${p.reportCount} reports`} under this address
        {p.hasAccount ? ", and your account" : ""}.
      </p>
      <h2>Download</h2>
      <p>
        A zip file with <code>data.json</code> (everything we hold about you: account, reports with their history,
        consents, sessions) and the photos you sent.
      </p>
      <PostForm action={p.downloadAction} csrfToken={p.csrfToken} hidden={p.hidden}>
        <button type="submit" class="button">
          Download my data
        </button>
      </PostForm>
      <h2>Consents</h2>
      <ConsentList csrfToken={p.csrfToken} consents={p.consents} action={p.withdrawAction} hidden={p.hidden} />
      <h2>Erase</h2>
      <EraseForm
        csrfToken={p.csrfToken}
        action={p.eraseAction}
        hidden={p.hidden}
        hasAccount={p.hasAccount}
        problems={[]}
      />
    </>
  );
}

export function EraseForm(p: {
  csrfToken: string;
  action: string;
  hidden?: Record<string, string>;
  hasAccount: boolean;
  problems: FieldProblem[];
}) {
  const error = p.problems.find((x) => x.field === "confirm")?.message;
  return (
    <>
      <ErrorSummary problems={p.problems} />
      <p>
        We erase your name, email address, phone number{p.hasAccount ? ", password, passkeys and sessions" : ""} and any
        mail waiting to be sent to you. Your reports stay public without any link to you, unless you ask us to remove
        them too. This cannot be undone. The same email address can be used again later.
      </p>
      <PostForm action={p.action} csrfToken={p.csrfToken} hidden={p.hidden} clearsDevice>
        <div class="field">
          <input type="checkbox" id="remove-public" name="remove_public" value="yes" />{" "}
          <label for="remove-public">Also remove my reports from public view</label>
        </div>
        <div class={`field${error ? " has-error" : ""}`}>
          <FieldError id="confirm-error" message={error} />
          <input
            type="checkbox"
            id="confirm"
            name="confirm"
            value="yes"
            aria-describedby={error ? "confirm-error" : undefined}
            aria-invalid={error ? "true" : undefined}
          />{" "}
          <label for="confirm">I understand that this erases my data for good</label>
        </div>
        <button type="submit" class="button">
          {p.hasAccount ? "Delete my account and erase my data" : "Erase my data"}
        </button>
      </PostForm>
    </>
  );
}

export function MyDataRequestPage(p: { csrfToken: string; email: string; problems: FieldProblem[] }) {
  return (
    <>
      <ErrorSummary problems={p.problems} />
      <h1>Your personal data</h1>
      <p>
        You do not need an account to see, download or erase what we hold about you. Give the email address you used
        (for a report, say) and we send a link to it. The link opens your data for 30 minutes.
      </p>
      <PostForm action="/my-data" csrfToken={p.csrfToken}>
        <Field
          id="email"
          label="Email address"
          type="email"
          autocomplete="email"
          maxLength={254}
          value={p.email}
          problems={p.problems}
        />
        <button type="submit" class="button">
          Send me a link
        </button>
      </PostForm>
      <p>
        Have an account? <a href="/account/data">Your data</a> is on your account pages too.
      </p>
    </>
  );
}

export function MyDataSentPage() {
  return (
    <>
      <h1>Check your email</h1>
      <p>
        If we hold anything under that address, or even if we do not, a message with a link is on its way to it. The
        link works for 30 minutes.
      </p>
    </>
  );
}

export function ErasedPage({ hadAccount }: { hadAccount: boolean }) {
  return (
    <>
      <h1>Your data is erased</h1>
      <p>
        {hadAccount ? "Your account is deleted and you are signed out. " : ""}We no longer hold your name, email address
        or phone number. Thank you for taking part.
      </p>
      <p>
        <a href="/">Go to the home page</a>
      </p>
    </>
  );
}
