import type { ReportVisibility } from "../core/db/schema.js";
import type { FieldProblem } from "../core/http/errors.js";
import { isPublic } from "../core/visibility.js";
import { ErrorSummary, FieldError } from "../core/web/forms.js";
import { CsrfField } from "../core/web/layout.js";
import { FLAG_REASONS, type FlagOutcome, MAX_FLAG_NOTE } from "./flags.js";
import type { ModeratedItem } from "./registry.js";

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });
function DateTime({ iso }: { iso: string }) {
  return <time dateTime={iso}>{dateFormat.format(new Date(iso))}</time>;
}

export interface FlagFormValues {
  reason: string;
  note: string;
}

/** "Report this": why an item should be looked at by the moderators. Works without JavaScript; no account needed. */
export function FlagForm(p: {
  item: ModeratedItem;
  noun: string;
  action: string;
  csrf: string;
  values: FlagFormValues;
  problems: FieldProblem[];
}) {
  const reasonError = p.problems.find((x) => x.field === "reason")?.message;
  const noteError = p.problems.find((x) => x.field === "note")?.message;
  return (
    <section>
      <h1>Report this {p.noun} to the moderators</h1>
      <p>
        You are reporting: <a href={p.item.publicPath}>{p.item.label}</a>. You do not need an account, and we do not
        tell anyone who reported it. The moderators look at every report; when several people signed in with accounts at
        least a week old report it, the {p.noun} is hidden until they have.
      </p>
      <ErrorSummary
        problems={p.problems.map((x) => ({ field: x.field === "note" ? "note" : "reason-spam", message: x.message }))}
      />
      <form method="post" action={p.action}>
        <CsrfField token={p.csrf} />
        <fieldset aria-describedby={reasonError ? "reason-error" : undefined}>
          <legend>Why should the moderators look at it?</legend>
          <FieldError id="reason-error" message={reasonError} />
          {Object.entries(FLAG_REASONS).map(([value, label]) => (
            <div key={value}>
              <input
                type="radio"
                name="reason"
                id={`reason-${value}`}
                value={value}
                required
                checked={p.values.reason === value}
              />{" "}
              <label for={`reason-${value}`}>{label}</label>
            </div>
          ))}
        </fieldset>
        <p>
          <label for="note">Anything the moderators should know (optional)</label>
          <FieldError id="note-error" message={noteError} />
          <textarea
            id="note"
            name="note"
            rows={4}
            maxLength={MAX_FLAG_NOTE}
            aria-describedby={noteError ? "note-error" : undefined}
          >
            {p.values.note}
          </textarea>
        </p>
        <button type="submit">Send to the moderators</button>
      </form>
    </section>
  );
}

export function FlagThanks({ item, outcome }: { item: ModeratedItem; outcome: FlagOutcome }) {
  return (
    <section>
      <h1>Thank you</h1>
      <p role="status">
        {outcome === "already-flagged"
          ? "This has been reported already; the moderators will look at it."
          : outcome === "hidden"
            ? "Several people have reported this, so it is hidden until a moderator has looked at it."
            : "The moderators will look at it. Thank you for helping keep the site useful and kind."}
      </p>
      <p>
        <a href={outcome === "hidden" ? "/reports" : item.publicPath}>Back</a>
      </p>
    </section>
  );
}

/** The link under a report or an update. */
export function ReportThisLink({ kind, id, noun }: { kind: string; id: string; noun: string }) {
  return (
    <a class="report-this" href={`/report-this/${kind}/${encodeURIComponent(id)}`}>
      Report this {noun}
      <span class="visually-hidden"> to the moderators</span>
    </a>
  );
}

/** "Moderated on <date>" on a public page; staff also see that the whole item is hidden or removed. */
export function ModerationNotice({
  moderatedAt,
  visibility,
}: {
  moderatedAt: string | null;
  visibility: ReportVisibility;
}) {
  if (!moderatedAt && isPublic(visibility)) return null;
  return (
    <p class="moderation-notice">
      {!isPublic(visibility) ? (
        <strong>
          Staff view: this is {visibility} from the public{moderatedAt ? " (" : ""}
          {moderatedAt ? (
            <>
              since <DateTime iso={moderatedAt} />)
            </>
          ) : null}
          .{" "}
        </strong>
      ) : null}
      {moderatedAt && isPublic(visibility) ? (
        <>
          Moderated on <DateTime iso={moderatedAt} />: the moderators hid or edited part of this report.
        </>
      ) : null}
    </p>
  );
}

/** Marks a hidden or removed update or photo in the staff view of a report. */
export function ModeratedMark({ visibility }: { visibility: ReportVisibility }) {
  if (isPublic(visibility)) return null;
  return <strong class="moderated-mark">[{visibility === "hidden" ? "Hidden" : "Removed"} from the public] </strong>;
}

/** The 410 page of a hidden or removed report: what happened, without showing any of it. */
export function ModeratedGone({ reference, removed }: { reference: string; removed: boolean }) {
  return (
    <section>
      <h1>This report is no longer shown</h1>
      <p>
        Report {reference} {removed ? "was removed" : "is hidden"} by the moderators
        {removed
          ? " because it broke the site's terms of use (for example spam, abusive language or personal information)."
          : ", either while they review reports people sent about it or because it broke the site's terms of use."}
      </p>
      <p>
        If it is yours, the email you gave tells you why. Other reports are on the{" "}
        <a href="/reports">list of reports</a>.
      </p>
    </section>
  );
}
