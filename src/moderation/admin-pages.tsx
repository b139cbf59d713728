import type { BannedSender } from "./types.js";
import { flagReasonLabel as reasonLabel } from "./flags.js";
import type { QueueEntry } from "./queue.js";
import { CsrfField } from "../core/web/layout.js";
import { isPublic } from "../core/visibility.js";

function ReasonField({
  id,
  label = "Reason (recorded, and told to the person concerned)",
}: {
  id: string;
  label?: string;
}) {
  return (
    <p>
      <label for={id}>{label}</label>
      <textarea id={id} name="reason" rows={2} required maxLength={2000} />
    </p>
  );
}

/** One decision form: what to do with an item, and why. */
export function DecisionForm({ kind, id, csrf, n }: { kind: string; id: string; csrf: string; n: number }) {
  return (
    <form method="post" action="/admin/moderation/decide" class="moderation-decision">
      <CsrfField token={csrf} />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="id" value={id} />
      <p>
        <label for={`action-${n}`}>Decision</label>
        <select id={`action-${n}`} name="action" required>
          <option value="dismiss">Keep as it is (dismiss the flags)</option>
          <option value="hide">Hide from the public</option>
          <option value="unhide">Show to the public again</option>
          <option value="remove">Remove (final for the public)</option>
        </select>
      </p>
      <ReasonField id={`reason-${n}`} />
      <button type="submit">Record decision</button>
    </form>
  );
}

export function ModerationQueuePage(p: {
  csrf: string;
  queue: QueueEntry[];
  recent: { id: number; kind: string; item_id: string; action: string; reason: string; created_at: string }[];
  done: string;
}) {
  return (
    <>
      <h1>Moderation</h1>
      {p.done ? <p role="status">Recorded: {p.done}.</p> : null}
      <h2>Flagged items ({p.queue.length})</h2>
      {p.queue.length === 0 ? <p>Nothing is waiting for a moderator.</p> : null}
      <ol class="moderation-queue">
        {p.queue.map((e, i) => (
          <li key={`${e.item.kind}:${e.item.id}`}>
            <h3>
              <a href={e.item.staffPath}>{e.item.label}</a>
              {!isPublic(e.item.state) ? <strong> [{e.item.state}]</strong> : null}
            </h3>
            {e.preview?.thumbnail ? (
              <p class="moderation-thumb">
                <img
                  src={e.preview.thumbnail.url}
                  alt={e.preview.thumbnail.alt}
                  width={e.preview.thumbnail.width}
                  height={e.preview.thumbnail.height}
                  loading="lazy"
                  decoding="async"
                />
              </p>
            ) : null}
            {e.preview?.place ? <p>Where: {e.preview.place}</p> : null}
            <p>{e.item.excerpt}</p>
            <p>
              Flags ({e.flags.length}; {e.independent} from independent flaggers, who count towards hiding it
              automatically):
            </p>
            <ul>
              {e.flags.map((f, j) => (
                <li key={j}>
                  {reasonLabel(f.reason)}
                  {f.note ? `: ${f.note}` : ""}
                </li>
              ))}
            </ul>
            {e.item.kind === "report" ? (
              <p>
                <a href={`/admin/moderation/reports/${e.item.id}/edit`}>Edit the title or description (redact)</a>
              </p>
            ) : null}
            <DecisionForm kind={e.item.kind} id={e.item.id} csrf={p.csrf} n={i} />
          </li>
        ))}
      </ol>
      <h2>Moderate any item</h2>
      <form method="post" action="/admin/moderation/decide">
        <CsrfField token={p.csrf} />
        <p>
          <label for="any-kind">Kind</label>
          <select id="any-kind" name="kind">
            <option value="report">Report (by reference)</option>
            <option value="update">Update (by number)</option>
            <option value="photo">Photo (by number)</option>
          </select>
        </p>
        <p>
          <label for="any-id">Reference or number</label>
          <input id="any-id" name="id" required maxLength={100} />
        </p>
        <p>
          <label for="any-action">Decision</label>
          <select id="any-action" name="action">
            <option value="hide">Hide from the public</option>
            <option value="unhide">Show to the public again</option>
            <option value="remove">Remove (final for the public)</option>
          </select>
        </p>
        <ReasonField id="any-reason" />
        <button type="submit">Record decision</button>
      </form>
      <h2>Accounts</h2>
      <form method="get" action="/admin/moderation/account">
        <p>
          <label for="account-email">Email address of the account</label>
          <input id="account-email" name="email" type="email" required maxLength={254} />
        </p>
        <button type="submit">Find account</button>
      </form>
      <h2>Recent decisions</h2>
      <table class="stacked">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Item</th>
            <th scope="col">Decision</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {p.recent.map((d) => (
            <tr key={d.id}>
              <td data-label="When">{d.created_at.slice(0, 16).replace("T", " ")}</td>
              <td data-label="Item">
                {d.kind} {d.item_id}
              </td>
              <td data-label="Decision">{d.action}</td>
              <td data-label="Reason">{d.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function RedactPage(p: {
  csrf: string;
  reference: string;
  title: string;
  description: string;
  original: { title: string; description: string } | null;
  isAdmin: boolean;
}) {
  return (
    <>
      <h1>Edit report {p.reference}</h1>
      <p>
        The reporter's original text is kept; an admin can restore it. The public page says the report was moderated.
      </p>
      <form method="post" action={`/admin/moderation/reports/${p.reference}/edit`}>
        <CsrfField token={p.csrf} />
        <p>
          <label for="title">Title</label>
          <input id="title" name="title" value={p.title} required maxLength={200} />
        </p>
        <p>
          <label for="description">Description</label>
          <textarea id="description" name="description" rows={8} required maxLength={5000}>
            {p.description}
          </textarea>
        </p>
        <ReasonField id="reason" />
        <button type="submit">Save the edited text</button>
      </form>
      {p.original ? (
        <>
          <h2>The reporter's original</h2>
          <p>
            <strong>{p.original.title}</strong>
          </p>
          <p>{p.original.description}</p>
          {p.isAdmin ? (
            <form method="post" action={`/admin/moderation/reports/${p.reference}/restore`}>
              <CsrfField token={p.csrf} />
              <ReasonField id="restore-reason" label="Reason for restoring the original" />
              <button type="submit">Restore the original text</button>
            </form>
          ) : null}
        </>
      ) : null}
    </>
  );
}

export function AccountModerationPage(p: {
  csrf: string;
  isAdmin: boolean;
  account: { id: string; email: string; role: string; suspended_at: string | null; suspended_reason: string | null };
  strikes: {
    id: number;
    created_at: string;
    overruled_at: string | null;
    overrule_reason: string | null;
    kind: string;
    item_id: string;
    action: string;
    reason: string;
  }[];
}) {
  const a = p.account;
  return (
    <>
      <h1>Account {a.email}</h1>
      <p>
        Role: {a.role}.{" "}
        {a.suspended_at ? `Suspended since ${a.suspended_at.slice(0, 10)}: ${a.suspended_reason ?? ""}` : "Active."}
      </p>
      {a.suspended_at ? (
        <form method="post" action="/admin/moderation/account/unsuspend">
          <CsrfField token={p.csrf} />
          <input type="hidden" name="account" value={a.id} />
          <ReasonField id="unsuspend-reason" />
          <button type="submit">End the suspension</button>
        </form>
      ) : (
        <form method="post" action="/admin/moderation/account/suspend">
          <CsrfField token={p.csrf} />
          <input type="hidden" name="account" value={a.id} />
          <ReasonField id="suspend-reason" />
          <p>
            <input type="checkbox" id="hide-content" name="hide_content" value="yes" />{" "}
            <label for="hide-content">Also hide everything this account has posted</label>
          </p>
          <button type="submit">Suspend the account</button>
        </form>
      )}
      <h2>Strikes</h2>
      {p.strikes.length === 0 ? <p>No strikes.</p> : null}
      <ul>
        {p.strikes.map((s, i) => (
          <li key={s.id}>
            {s.created_at.slice(0, 10)}: {s.action} of {s.kind} {s.item_id} ({s.reason})
            {s.overruled_at ? ` — overruled: ${s.overrule_reason ?? ""}` : ""}
            {!s.overruled_at && p.isAdmin ? (
              <form method="post" action="/admin/moderation/strikes/overrule">
                <CsrfField token={p.csrf} />
                <input type="hidden" name="strike" value={String(s.id)} />
                <ReasonField id={`overrule-${i}`} label="Reason for overruling this strike" />
                <button type="submit">Overrule</button>
              </form>
            ) : null}
          </li>
        ))}
      </ul>
    </>
  );
}

export function BanListPage(p: { csrf: string; bans: BannedSender[] }) {
  return (
    <>
      <h1>Ban list</h1>
      <p>Reports from these addresses or domains are accepted as usual (the sender is not told) but never published.</p>
      <form method="post" action="/admin/ban-list">
        <CsrfField token={p.csrf} />
        <p>
          <label for="pattern">Email address or domain</label>
          <input id="pattern" name="pattern" required maxLength={254} />
        </p>
        <ReasonField id="ban-reason" label="Reason (recorded)" />
        <button type="submit">Add to the ban list</button>
      </form>
      <h2>Entries ({p.bans.length})</h2>
      <ul>
        {p.bans.map((b, i) => (
          <li key={b.id}>
            <strong>{b.pattern}</strong>: {b.reason} ({b.created_at.slice(0, 10)})
            <form method="post" action="/admin/ban-list/remove">
              <CsrfField token={p.csrf} />
              <input type="hidden" name="id" value={String(b.id)} />
              <ReasonField id={`unban-${i}`} label={`Reason for removing ${b.pattern}`} />
              <button type="submit">Remove {b.pattern}</button>
            </form>
          </li>
        ))}
      </ul>
    </>
  );
}
