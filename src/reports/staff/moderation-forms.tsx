import type { ReportVisibility } from "../../core/db/schema.js";
import type { FieldProblem } from "../../core/http/errors.js";
import { CsrfField } from "../../core/web/layout.js";
import { isPublic } from "../../core/visibility.js";
import { flagReasonLabel, ModeratedMark } from "../../moderation/index.js";
import { DateTime } from "../pages/common.js";
import { ErrorFor } from "./action-forms.js";
import type { ReportModeration } from "./moderation-view.js";
import { shownSize } from "./photos.js";

/** What a decision did, as the history says it. */
const DONE: Record<string, string> = {
  hide: "Hidden",
  unhide: "Shown again",
  remove: "Removed",
  dismiss: "Flags dismissed (kept as it was)",
  redact: "Title or description edited",
  restore: "Original text restored",
};

const NOUN: Record<string, string> = { report: "The report", photo: "Photo", update: "Update" };

/** aria attributes of a field with a hint and a possible error (ids are `staff-<name>`). */
function described(problems: FieldProblem[], name: string, hint: boolean) {
  const invalid = problems.some((p) => p.field === name);
  const ids = [hint ? `staff-${name}-hint` : null, invalid ? `staff-${name}-error` : null].filter(Boolean);
  return {
    "aria-invalid": invalid ? ("true" as const) : undefined,
    "aria-describedby": ids.length > 0 ? ids.join(" ") : undefined,
  };
}

interface FormBits {
  reference: string;
  csrfToken: string;
  problems: FieldProblem[];
  values: Record<string, string | undefined>;
}

/** The decisions that change an item in its state (a removed item can only be shown again, by an admin). */
function choicesFor(visibility: ReportVisibility, openFlags: boolean) {
  const choices: { value: string; label: string }[] = [];
  if (isPublic(visibility)) choices.push({ value: "hide", label: "Hide from the public" });
  else choices.push({ value: "unhide", label: "Show to the public again" });
  if (visibility !== "removed") choices.push({ value: "remove", label: "Remove (final for the public)" });
  if (openFlags) choices.push({ value: "dismiss", label: "Keep as it is (dismiss the flags)" });
  return choices;
}

/**
 * One item's decision form: what to do and a required reason. `prefix` names its fields ("moderation" for the
 * report, "photo_12" for photo 12), so several on one page keep their own values and errors.
 */
function DecisionForm(
  p: FormBits & {
    target: "report" | "photo" | "update";
    item?: number;
    prefix: string;
    visibility: ReportVisibility;
    openFlags: boolean;
    button: string;
  },
) {
  const action = `${p.prefix}_action`;
  const reason = `${p.prefix}_reason`;
  const choices = choicesFor(p.visibility, p.openFlags);
  const chosen = p.values[action] ?? choices[0]?.value;
  return (
    <form method="post" action={`/admin/reports/${p.reference}/moderate`} class="moderation-decision">
      <CsrfField token={p.csrfToken} />
      <input type="hidden" name="target" value={p.target} />
      {p.item !== undefined ? <input type="hidden" name="item" value={String(p.item)} /> : null}
      <fieldset id={`staff-${action}`} {...described(p.problems, action, false)}>
        <legend>Decision</legend>
        <ErrorFor problems={p.problems} field={action} />
        {choices.map((c) => (
          <p key={c.value} class="choice">
            <input
              type="radio"
              id={`staff-${action}-${c.value}`}
              name={action}
              value={c.value}
              checked={c.value === chosen}
            />
            <label for={`staff-${action}-${c.value}`}>{c.label}</label>
          </p>
        ))}
      </fieldset>
      <p>
        <label for={`staff-${reason}`}>Reason</label>
        <span class="hint" id={`staff-${reason}-hint`}>
          Required. Recorded in the moderation history and the audit log, and told to the author.
        </span>
        <ErrorFor problems={p.problems} field={reason} />
        <textarea
          id={`staff-${reason}`}
          name={reason}
          rows={2}
          required
          maxLength={2000}
          {...described(p.problems, reason, true)}
        >
          {p.values[reason] ?? ""}
        </textarea>
      </p>
      <p>
        <button type="submit">{p.button}</button>
      </p>
    </form>
  );
}

/** Whether any of the problems belongs to a form whose fields start with `prefix`. */
const hasProblem = (problems: FieldProblem[], prefix: string) => problems.some((x) => x.field.startsWith(prefix));

/** The report's photos as staff see them: hidden and removed ones too, marked, each with its own decision form. */
export function StaffPhotosView(p: FormBits & { moderation: ReportModeration }) {
  const { photos, flags } = p.moderation;
  return (
    <>
      <h2>Photos</h2>
      {photos.length === 0 ? (
        <p>No photos.</p>
      ) : (
        <ul class="report-photos staff-photos">
          {photos.map((ph, i) => {
            const prefix = `photo_${ph.id}`;
            const open = flags.some((f) => f.kind === "photo" && f.itemId === String(ph.id) && !f.resolvedAt);
            return (
              <li key={ph.id}>
                <ModeratedMark visibility={ph.visibility} />
                <a href={ph.full}>
                  <img
                    src={ph.thumb}
                    alt={`Photo ${i + 1} of ${photos.length} (number ${ph.id})${isPublic(ph.visibility) ? "" : `, ${ph.visibility} from the public`} (opens the full size)`}
                    {...shownSize(ph, 240)}
                    loading="lazy"
                  />
                </a>
                {open ? <p>Flagged: waiting for a moderator.</p> : null}
                <details open={hasProblem(p.problems, `${prefix}_`)}>
                  <summary>{isPublic(ph.visibility) ? "Hide this photo" : "Moderate this photo"}</summary>
                  <DecisionForm
                    {...p}
                    target="photo"
                    item={ph.id}
                    prefix={prefix}
                    visibility={ph.visibility}
                    openFlags={open}
                    button="Record the decision on this photo"
                  />
                </details>
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}

/** The moderation part of a report's staff view: flags, history, the author's standing and the decision forms. */
export function ModerationSection(
  p: FormBits & {
    moderation: ReportModeration;
    visibility: ReportVisibility;
    title: string;
    description: string;
    isAdmin: boolean;
  },
) {
  const m = p.moderation;
  const openReportFlags = m.flags.some((f) => f.kind === "report" && !f.resolvedAt);
  const itemName = (kind: string, id: string) => (kind === "report" ? NOUN.report : `${NOUN[kind] ?? kind} ${id}`);
  return (
    <section aria-labelledby="staff-moderation-heading">
      <h2 id="staff-moderation-heading">Moderation</h2>
      <p>
        This report is <strong>{p.visibility}</strong>
        {isPublic(p.visibility) ? " (shown to the public)" : " (not shown to the public)"}.
      </p>
      <h3>Flags</h3>
      {m.flags.length === 0 ? (
        <p>Nobody has flagged this report, its photos or its updates.</p>
      ) : (
        <ul>
          {m.flags.map((f, i) => (
            <li key={i}>
              {itemName(f.kind, f.itemId)}: {flagReasonLabel(f.reason)}
              {f.note ? `: “${f.note}”` : ""} (<DateTime iso={f.at} withTime />
              {f.resolvedAt ? "; decided" : "; waiting for a moderator"})
            </li>
          ))}
        </ul>
      )}
      <h3>Moderation history</h3>
      {m.decisions.length === 0 ? (
        <p>No moderation decisions yet.</p>
      ) : (
        <ol class="timeline">
          {m.decisions.map((d, i) => (
            <li key={i}>
              <DateTime iso={d.at} withTime />: {itemName(d.kind, d.itemId)}: {DONE[d.action] ?? d.action}, by{" "}
              {d.by ?? "the platform (automatic)"}. Reason: {d.reason}
            </li>
          ))}
        </ol>
      )}
      <h3>Its author</h3>
      {m.author ? (
        <p>
          The author's account has made {m.author.reports} {m.author.reports === 1 ? "report" : "reports"}, has{" "}
          {m.author.activeStrikes} {m.author.activeStrikes === 1 ? "strike" : "strikes"} in the last 90 days (
          {m.author.strikes} in all, overruled ones aside), and their reports and photos have had {m.author.flags}{" "}
          {m.author.flags === 1 ? "flag" : "flags"}.{m.author.suspended ? " The account is suspended." : ""}
        </p>
      ) : (
        <p>Made without an account: there is no history of the author to show.</p>
      )}
      <h3>Hide, show again or remove this report</h3>
      <DecisionForm
        {...p}
        target="report"
        prefix="moderation"
        visibility={p.visibility}
        openFlags={openReportFlags}
        button="Record the decision on this report"
      />
      <h3>Edit the title or description (redact)</h3>
      <p>
        For personal details or abusive words in the text. The reporter's original is kept for staff
        {p.isAdmin ? "" : " (an admin can put it back)"}.
      </p>
      {m.original ? (
        <details>
          <summary>The reporter's original text</summary>
          <p>
            <strong>{m.original.title}</strong>
          </p>
          <p class="report-description">{m.original.description}</p>
          {p.isAdmin ? (
            <p>
              <a href={`/admin/moderation/reports/${p.reference}/edit`}>Restore the original text</a>
            </p>
          ) : null}
        </details>
      ) : null}
      <form method="post" action={`/admin/reports/${p.reference}/redact`}>
        <CsrfField token={p.csrfToken} />
        <p>
          <label for="staff-redact_title">Title</label>
          <ErrorFor problems={p.problems} field="redact_title" />
          <input
            id="staff-redact_title"
            name="redact_title"
            required
            maxLength={200}
            value={p.values.redact_title ?? p.title}
            {...described(p.problems, "redact_title", false)}
          />
        </p>
        <p>
          <label for="staff-redact_description">Description</label>
          <ErrorFor problems={p.problems} field="redact_description" />
          <textarea
            id="staff-redact_description"
            name="redact_description"
            rows={5}
            required
            maxLength={5000}
            {...described(p.problems, "redact_description", false)}
          >
            {p.values.redact_description ?? p.description}
          </textarea>
        </p>
        <p>
          <label for="staff-redact_reason">Reason</label>
          <span class="hint" id="staff-redact_reason-hint">
            Required. Recorded in the moderation history and the audit log, and told to the author.
          </span>
          <ErrorFor problems={p.problems} field="redact_reason" />
          <textarea
            id="staff-redact_reason"
            name="redact_reason"
            rows={2}
            required
            maxLength={2000}
            {...described(p.problems, "redact_reason", true)}
          >
            {p.values.redact_reason ?? ""}
          </textarea>
        </p>
        <p>
          <button type="submit">Save the edited text</button>
        </p>
      </form>
      <h3>Updates</h3>
      {m.updates.length === 0 ? (
        <p>No public updates to moderate.</p>
      ) : (
        <ul>
          {m.updates.map((u) => {
            const prefix = `update_${u.id}`;
            const open = m.flags.some((f) => f.kind === "update" && f.itemId === String(u.id) && !f.resolvedAt);
            return (
              <li key={u.id}>
                <ModeratedMark visibility={u.visibility} />
                Update {u.id}, <DateTime iso={u.at} withTime />: {u.note || "(no text)"}
                <details open={hasProblem(p.problems, `${prefix}_`)}>
                  <summary>{isPublic(u.visibility) ? `Hide update ${u.id}` : `Moderate update ${u.id}`}</summary>
                  <DecisionForm
                    {...p}
                    target="update"
                    item={u.id}
                    prefix={prefix}
                    visibility={u.visibility}
                    openFlags={open}
                    button="Record the decision on this update"
                  />
                </details>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
