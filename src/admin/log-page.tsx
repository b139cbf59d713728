import { Pager } from "../core/staff/pager.js";
import { AuditDetails } from "./audit-details.js";
import { type AuditFilter, type AuditRow, COMMAND_LINE_ACTOR } from "../core/staff/audit.js";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" });

export interface AuditLogProps {
  rows: AuditRow[];
  total: number;
  page: number;
  pages: number;
  filter: AuditFilter;
  actions: string[];
  itemTypes: string[];
  query: (page: number) => string;
}

function Choice({ name, label, value, options }: { name: string; label: string; value?: string; options: string[] }) {
  return (
    <p>
      <label for={`log-${name}`}>{label}</label>
      <select id={`log-${name}`} name={name}>
        <option value="">Any</option>
        {options.map((o) => (
          <option value={o} selected={o === value} key={o}>
            {o}
          </option>
        ))}
      </select>
    </p>
  );
}

/** /admin/log: every staff action, newest first; read-only. */
export function AuditLogPage(p: AuditLogProps) {
  return (
    <>
      <h1>Audit log</h1>
      <p>Every action staff take, and every automatic one, is recorded here. Nobody can change or delete an entry.</p>
      <form method="get" action="/admin/log" class="filters">
        <Choice name="action" label="Action" value={p.filter.action} options={p.actions} />
        <Choice name="item_type" label="Item type" value={p.filter.itemType} options={p.itemTypes} />
        <p>
          <label for="log-item">Item id</label>
          <input id="log-item" name="item_id" value={p.filter.itemId ?? ""} maxLength={100} />
        </p>
        <p>
          <label for="log-from">From (date)</label>
          <input id="log-from" name="from" type="date" value={p.filter.from ?? ""} />
        </p>
        <p>
          <label for="log-to">To (date)</label>
          <input id="log-to" name="to" type="date" value={p.filter.to ?? ""} />
        </p>
        <p>
          <button type="submit">Show</button>
        </p>
      </form>
      <p role="status">
        {p.total === 0
          ? "No entries match."
          : `${p.total} ${p.total === 1 ? "entry" : "entries"}, page ${p.page} of ${p.pages}.`}
      </p>
      {p.rows.length > 0 ? (
        <table class="data-table stacked">
          <caption class="visually-hidden">Audit log entries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When (UTC)</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Item</th>
              <th scope="col">Reason</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr key={r.id}>
                <td data-label="When (UTC)">
                  <time dateTime={r.at}>{dateTime.format(new Date(r.at))}</time>
                </td>
                <td data-label="Who">
                  {r.actorId === null
                    ? "The platform (automatic)"
                    : r.actorId === COMMAND_LINE_ACTOR
                      ? "The command line (civic users)"
                      : (r.actorLabel ?? "A former account")}
                </td>
                <td data-label="Action">{r.action}</td>
                <td data-label="Item">
                  {r.itemType} {r.itemId}
                </td>
                <td data-label="Reason">{r.reason ?? ""}</td>
                <td data-label="Details">
                  <AuditDetails details={r.details} itemType={r.itemType} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager
        label="Pages of the audit log"
        page={p.page}
        pages={p.pages}
        href={p.query}
        previous="Newer entries"
        next="Older entries"
      />
    </>
  );
}
