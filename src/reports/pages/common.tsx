import type { ReportStatus } from "../../core/db/schema.js";
import { STATUS_LABELS } from "../model.js";
import type { PublicReport } from "../repository.js";

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });
const dateTimeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

export function formatDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

export function DateTime({ iso, withTime = false }: { iso: string; withTime?: boolean }) {
  return <time dateTime={iso}>{(withTime ? dateTimeFormat : dateFormat).format(new Date(iso))}</time>;
}

export function StatusTag({ status }: { status: ReportStatus }) {
  return <span class={`tag status-${status}`}>{STATUS_LABELS[status]}</span>;
}

export function where(r: PublicReport): string | null {
  const parts = [r.placeName, r.locationText].filter((x): x is string => !!x);
  return parts.length > 0 ? parts.join(": ") : null;
}
