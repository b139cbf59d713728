import { Fragment } from "preact";
import { STATUS_LABELS } from "../reports/index.js";

/** Words for the keys features write in audit details; any other key is shown with its own words ("text_changed"). */
const KEY_LABELS: Record<string, string> = {
  from: "From",
  to: "To",
  status: "Status",
  category: "Category",
  title: "Title",
  name: "Name",
  email: "Email address",
  note: "Note (id)",
  update: "Update (id)",
  text_changed: "Text changed",
  rows: "Rows",
  project: "Project (id)",
  prefix: "Key prefix",
  original: "Original report",
  forwarded: "Forwarded",
  department: "Department",
  question: "Question",
  questions: "Questions",
  direction: "Direction",
  removed: "Removed",
  changed: "Changed",
};

/** Item types whose `from`, `to` and `status` details may be report statuses (shown by their public label). */
const REPORT_STATUS_ITEMS = new Set(["report", "response_template"]);
const STATUS_KEYS = new Set(["from", "to", "status"]);
const MAX_DEPTH = 4;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** A key in words: its known label, or its own words with the first capitalised ("textChanged" → "Text changed"). */
export function keyLabel(key: string): string {
  const known = KEY_LABELS[key];
  if (known) return known;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : "(no name)";
}

function isStatus(value: string): value is keyof typeof STATUS_LABELS {
  return Object.prototype.hasOwnProperty.call(STATUS_LABELS, value);
}

/** A scalar value in words: statuses by their label, dates readable, yes/no, "none" for nothing. */
function scalarText(value: unknown, key: string, itemType: string): string {
  if (value === null || value === undefined || value === "") return "none";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") {
    if (REPORT_STATUS_ITEMS.has(itemType) && STATUS_KEYS.has(key) && isStatus(value)) return STATUS_LABELS[value];
    if (ISO_DATE_TIME.test(value)) {
      const d = new Date(value);
      if (!Number.isNaN(d.getTime())) return `${dateTime.format(d)} UTC`;
    }
    return value;
  }
  return String(value);
}

const isScalar = (v: unknown) => v === null || typeof v !== "object";

function Value({ value, name, itemType, depth }: { value: unknown; name: string; itemType: string; depth: number }) {
  if (isScalar(value)) return <>{scalarText(value, name, itemType)}</>;
  if (depth >= MAX_DEPTH) return <>…</>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <>none</>;
    if (value.every(isScalar)) return <>{value.map((v) => scalarText(v, name, itemType)).join(", ")}</>;
    return (
      <ul class="audit-details-list">
        {value.map((v, i) => (
          <li key={i}>
            <Value value={v} name={name} itemType={itemType} depth={depth + 1} />
          </li>
        ))}
      </ul>
    );
  }
  return <Details details={value as Record<string, unknown>} itemType={itemType} depth={depth + 1} />;
}

function Details({ details, itemType, depth }: { details: Record<string, unknown>; itemType: string; depth: number }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return <>none</>;
  return (
    <dl class="audit-details">
      {entries.map(([key, value]) => (
        <Fragment key={key}>
          <dt>{keyLabel(key)}</dt>
          <dd>
            <Value value={value} name={key} itemType={itemType} depth={depth} />
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}

/**
 * An audit row's details as labelled values (never raw JSON): each key in words, report statuses by their public
 * label, dates readable, nested values as nested lists; a key no feature told us about is still shown, by its name.
 */
export function AuditDetails({ details, itemType }: { details: Record<string, unknown>; itemType: string }) {
  if (Object.keys(details).length === 0) return null;
  return <Details details={details} itemType={itemType} depth={0} />;
}
