import { Fragment } from "preact";
import { Pager } from "../../core/staff/pager.js";
import type { Category } from "../../core/db/schema.js";
import type { FieldProblem } from "../../core/http/errors.js";
import { ErrorSummary } from "../../core/web/forms.js";
import { CsrfField } from "../../core/web/layout.js";
import { isPublic } from "../../core/visibility.js";
import { REPORT_STATUSES, STATUS_LABELS } from "../model.js";
import { DateTime, PlaceLine, ReportViewMap, StatusTag } from "../pages/common.js";
import type { InboxFilter, InboxRow, InboxSort } from "./inbox.js";
import { type MapTiles, ReportsMap } from "../pages/list.js";
import type { StaffReport } from "./triage.js";
import { DuplicateLinksView } from "../pages/duplicates.js";
import { type ActionChoices, ActionForms, ErrorFor, StatusForm } from "./action-forms.js";
import type { ResponseTemplate } from "./templates.js";
import { ModerationSection, StaffPhotosView } from "./moderation-forms.js";
import type { ReportModeration } from "./moderation-view.js";
import { type ForwardingRow, forwardingWords, syncWords } from "../forward.js";

export interface InboxProps {
  rows: InboxRow[];
  total: number;
  page: number;
  pages: number;
  filter: InboxFilter;
  categories: Category[];
  staff: ActionChoices["staff"];
  /** The assigned filter as given: "", "me", "none" or an account id. */
  assigned: string;
  query: (page: number) => string;
  sort: InboxSort;
  /** The map data of the filtered inbox (staff only), and where the map starts. */
  mapUrl: string;
  mapBounds: number[];
  tiles: MapTiles;
}

const SORT_LABELS: Record<InboxSort, string> = {
  "": "Unreviewed first, most seen too, newest",
  oldest: "Oldest first (waiting longest)",
  newest: "Newest first",
  seen: "Most “seen too” first",
};

/** "open 12 days", or the age of a report dealt with. */
export function ageWords(r: Pick<InboxRow, "ageDays" | "unresolved">): string {
  const days = r.ageDays === 0 ? "less than a day" : `${r.ageDays} ${r.ageDays === 1 ? "day" : "days"}`;
  return r.unresolved ? `open ${days}` : `made ${r.ageDays === 0 ? "today" : `${days} ago`}`;
}

/** /admin/reports: the triage inbox. */
export function InboxPage(p: InboxProps) {
  return (
    <>
      <h1>Reports inbox</h1>
      <p>
        By default unreviewed (open) reports come first, those most people have seen too before the others, then the
        newest. Hidden and removed reports are listed too, marked.
      </p>
      <form method="get" action="/admin/reports" class="filters">
        <p>
          <label for="inbox-q">Reference or words</label>
          <input id="inbox-q" name="q" type="search" value={p.filter.q ?? ""} maxLength={200} />
        </p>
        <p>
          <label for="inbox-status">Status</label>
          <select id="inbox-status" name="status">
            <option value="">Any</option>
            {REPORT_STATUSES.map((s) => (
              <option value={s} selected={s === p.filter.status} key={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </p>
        <p>
          <label for="inbox-category">Category</label>
          <select id="inbox-category" name="category">
            <option value="">Any</option>
            {p.categories.map((c) => (
              <option value={c.code} selected={c.code === p.filter.category} key={c.code}>
                {c.name}
              </option>
            ))}
          </select>
        </p>
        <p>
          <label for="inbox-assigned">Assigned to</label>
          <select id="inbox-assigned" name="assigned">
            <option value="">Anyone or nobody</option>
            <option value="me" selected={p.assigned === "me"}>
              Me
            </option>
            <option value="none" selected={p.assigned === "none"}>
              Nobody
            </option>
            {p.staff.map((s) => (
              <option value={s.id} selected={s.id === p.assigned} key={s.id}>
                {s.name ? `${s.name} (${s.email})` : s.email}
              </option>
            ))}
          </select>
        </p>
        <p>
          <label for="inbox-from">Reported from (date)</label>
          <input id="inbox-from" name="from" type="date" value={p.filter.from ?? ""} />
        </p>
        <p>
          <label for="inbox-to">Reported until (date)</label>
          <input id="inbox-to" name="to" type="date" value={p.filter.to ?? ""} />
        </p>
        <p>
          <label for="inbox-sort">Order</label>
          <select id="inbox-sort" name="sort">
            {(Object.keys(SORT_LABELS) as InboxSort[]).map((s) => (
              <option value={s} selected={s === p.sort} key={s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </p>
        <p>
          <button type="submit">Show</button>
        </p>
      </form>
      <p role="status">
        {p.total === 0
          ? "No reports match."
          : `${p.total} ${p.total === 1 ? "report" : "reports"}, page ${p.page} of ${p.pages}.`}
      </p>
      {p.rows.length > 0 ? (
        <table class="stacked">
          <caption class="visually-hidden">Reports: {SORT_LABELS[p.sort]}</caption>
          <thead>
            <tr>
              <th scope="col">Reference</th>
              <th scope="col">Title</th>
              <th scope="col">Category</th>
              <th scope="col">Status</th>
              <th scope="col">Age</th>
              <th scope="col">Place</th>
              <th scope="col">Flags</th>
              <th scope="col">Seen too</th>
              <th scope="col">Assigned to</th>
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr key={r.reference}>
                <td data-label="Reference">
                  <a href={`/admin/reports/${r.reference}`}>{r.reference}</a>
                </td>
                <td data-label="Title" class="free-text">
                  {r.title}
                  {!isPublic(r.visibility) ? <strong> ({r.visibility})</strong> : null}
                </td>
                <td data-label="Category">{r.categoryName}</td>
                <td data-label="Status">
                  <StatusTag status={r.status} />
                </td>
                <td data-label="Age">
                  {ageWords(r)}, reported <DateTime iso={r.createdAt} />
                </td>
                <td data-label="Place" class="free-text">
                  {r.placeInWords ?? "Not given"}
                </td>
                <td data-label="Flags">{r.flags}</td>
                <td data-label="Seen too">{r.seen}</td>
                <td data-label="Assigned to">{r.assignedTo ?? "Nobody"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager label="Pages of the inbox" page={p.page} pages={p.pages} href={p.query} />
      {p.total > 0 ? (
        <ReportsMap
          mapUrl={p.mapUrl}
          bounds={p.mapBounds}
          tiles={p.tiles}
          linkBase="/admin/reports/"
          label="Map of the reports in the inbox that match the filters"
        />
      ) : null}
    </>
  );
}

const NOTICES: Record<string, string> = {
  status: "The status is changed and the update is published.",
  note: "Your note is saved.",
  category: "The category is changed (and the report forwarded to its department, if it has one).",
  forward: "The report is forwarded again.",
  duplicate: "The report is marked as a duplicate and closed; the update is published.",
  assign: "The assignment is saved.",
  moderated: "The moderation decision is recorded (and the author told, when they gave an address).",
  redacted: "The edited text is saved and shown on the public page; the reporter's original is kept for staff.",
};

export interface StaffReportProps {
  r: StaffReport;
  csrfToken: string;
  problems: FieldProblem[];
  values: Record<string, string | undefined>;
  notice?: string;
  choices: ActionChoices;
  /** The response templates of the report's category (and of every category) for its next statuses. */
  templates: ResponseTemplate[];
  /** Its photos, updates, flags, moderation history and its author's standing. */
  moderation: ReportModeration;
  /** Where the report was forwarded, newest first (forward.ts). */
  forwardings?: ForwardingRow[];
  tiles: { tileUrl: string; attribution: string; zooms?: string | undefined };
  isAdmin: boolean;
}

/** /admin/reports/{reference}: one report as staff see it, with the triage and moderation forms. */
export function StaffReportPage(props: StaffReportProps) {
  const { r, csrfToken, problems, values, notice, choices, moderation, templates } = props;
  const bits = { reference: r.reference, csrfToken, problems, values };
  const has = (f: string) => problems.some((p) => p.field === f);
  return (
    <>
      <p>
        <a href="/admin/reports">Reports inbox</a>
      </p>
      <h1>
        Report {r.reference}: {r.title}
      </h1>
      <ErrorSummary problems={problems} staffPrefix="staff-" />
      {notice && NOTICES[notice] ? (
        <p class="notice notice-success" role="status">
          {NOTICES[notice]}
        </p>
      ) : null}
      <dl class="report-facts">
        <dt>Status</dt>
        <dd>
          <StatusTag status={r.status} />
        </dd>
        <dt>Visibility</dt>
        <dd>{r.visibility}</dd>
        <dt>Category</dt>
        <dd>{r.categoryName}</dd>
        <dt>Reported</dt>
        <dd>
          <DateTime iso={r.createdAt} withTime />
        </dd>
        <dt>Location</dt>
        <dd>
          <PlaceLine r={r} />
        </dd>
        <dt>Flags waiting for a moderator</dt>
        <dd>{moderation.flags.filter((f) => !f.resolvedAt).length}</dd>
        <dt>Forwarded</dt>
        <dd>
          {(props.forwardings ?? []).length === 0 ? (
            r.forwardedAt ? (
              <DateTime iso={r.forwardedAt} withTime />
            ) : (
              "Not yet"
            )
          ) : (
            <ul class="forwardings">
              {(props.forwardings ?? []).map((f) => (
                <li key={f.id}>
                  {forwardingWords(f)}:{" "}
                  {f.state === "sent" && f.sent_at ? (
                    <>
                      sent <DateTime iso={f.sent_at} withTime />
                    </>
                  ) : f.state === "failed" ? (
                    <strong>not sent (use "Forward again" to resend)</strong>
                  ) : (
                    <>
                      waiting to be sent (attempt {f.attempts + 1}, <DateTime iso={f.next_attempt_at} withTime />)
                    </>
                  )}
                  {f.last_error ? <> The council's answer: “{f.last_error}”</> : null}
                  {f.synced_at && syncWords(f, true) ? (
                    <>
                      {" "}
                      Last sync <DateTime iso={f.synced_at} withTime />: {syncWords(f, true)}.
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Assigned to</dt>
        <dd>{r.assignedTo ?? "Nobody"}</dd>
        <dt>Reporter gave an email address</dt>
        <dd>{r.hasReporterEmail ? "Yes: they are emailed at every public status change" : "No"}</dd>
        <dt>Public page</dt>
        <dd>
          <a href={`/reports/${r.reference}`}>/reports/{r.reference}</a>
        </dd>
      </dl>
      {r.lat !== null && r.lng !== null ? (
        <ReportViewMap r={{ lat: r.lat, lng: r.lng, title: r.title, status: r.status }} tiles={props.tiles} />
      ) : null}
      <DuplicateLinksView links={r.links} href={(reference) => `/admin/reports/${reference}`} />
      <h2>Description</h2>
      <p class="report-description">{r.description}</p>
      {r.answers.length > 0 ? (
        <>
          <h2>Answers to the category's questions</h2>
          <dl class="report-facts">
            {r.answers.map((a) => (
              <Fragment key={a.code}>
                <dt>
                  {a.label}
                  {a.removed ? " (a question since removed)" : ""}
                </dt>
                <dd>{a.answer}</dd>
              </Fragment>
            ))}
          </dl>
        </>
      ) : null}

      <StaffPhotosView {...bits} moderation={moderation} />
      <ModerationSection
        {...bits}
        moderation={moderation}
        visibility={r.visibility as "public" | "hidden" | "removed"}
        title={r.title}
        description={r.description}
        isAdmin={props.isAdmin}
      />

      <StatusForm r={r} csrfToken={csrfToken} problems={problems} values={values} templates={templates} />

      <ActionForms r={r} csrfToken={csrfToken} problems={problems} values={values} choices={choices} />

      <h2>Public history</h2>
      {r.history.length === 0 ? (
        <p>No updates yet.</p>
      ) : (
        <ol class="timeline">
          {r.history.map((h, i) => (
            <li key={i}>
              <DateTime iso={h.at} withTime />: <StatusTag status={h.status} /> {h.note}
            </li>
          ))}
        </ol>
      )}

      <h2>Staff notes (private)</h2>
      {r.notes.length === 0 ? (
        <p>No notes yet.</p>
      ) : (
        <ul>
          {r.notes.map((n) => (
            <li key={n.id}>
              <DateTime iso={n.at} withTime />, {n.author ?? "a former account"}: {n.body}
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={`/admin/reports/${r.reference}/notes`}>
        <CsrfField token={csrfToken} />
        <p>
          <label for="staff-body">Add a private note</label>
          <ErrorFor problems={problems} field="body" />
          <textarea
            id="staff-body"
            name="body"
            rows={3}
            required
            aria-invalid={has("body") ? "true" : undefined}
            aria-describedby={has("body") ? "staff-body-error" : undefined}
          >
            {values.body ?? ""}
          </textarea>
        </p>
        <p>
          <button type="submit">Save the note</button>
        </p>
      </form>
      <p>
        <a href={`/admin/log?item_type=report&item_id=${r.reference}`}>This report in the audit log</a>
      </p>
    </>
  );
}
