// What the reports maps share: the tile layer, and a report's marker, whose shape and symbol tell its status (not
// its colour alone): open is a pin with "!", in progress a diamond with "…", fixed a circle with "✓", closed
// (also duplicate, not the council's) a square with "×". Its label (title, aria-label) names the status in words.
import * as L from "leaflet";
import { addTileLayer } from "./_tiles.js";

export type Status =
  "open" | "investigating" | "in_progress" | "action_scheduled" | "fixed" | "closed" | "duplicate" | "not_responsible";

/** As STATUS_LABELS in src/reports/model.ts (test/foundation/status-labels.test.ts holds them equal). */
export const STATUS_LABELS: Record<Status, string> = {
  open: "Open",
  investigating: "Investigating",
  in_progress: "In progress",
  action_scheduled: "Action scheduled",
  fixed: "Fixed",
  closed: "Closed",
  duplicate: "Duplicate",
  not_responsible: "Not the council's responsibility",
};

type Shape = "open" | "progress" | "fixed" | "closed";
const SHAPES: Record<Status, Shape> = {
  open: "open",
  investigating: "open",
  in_progress: "progress",
  action_scheduled: "progress",
  fixed: "fixed",
  closed: "closed",
  duplicate: "closed",
  not_responsible: "closed",
};
const SYMBOLS: Record<Shape, string> = { open: "!", progress: "…", fixed: "✓", closed: "×" };

const icons = new Map<Shape, L.DivIcon>();
function iconFor(status: Status): L.DivIcon {
  const shape = SHAPES[status] ?? "open";
  let icon = icons.get(shape);
  if (!icon) {
    const pin = shape === "open";
    icon = L.divIcon({
      className: `report-pin report-pin-${shape}`,
      html: `<span aria-hidden="true">${SYMBOLS[shape]}</span>`,
      iconSize: [28, 28],
      iconAnchor: pin ? [14, 28] : [14, 14],
      popupAnchor: pin ? [0, -28] : [0, -14],
    });
    icons.set(shape, icon);
  }
  return icon;
}

/** The configured tiles and attribution on `map`, from the data attributes of `el`. */
export function addTiles(map: L.Map, el: HTMLElement): void {
  addTileLayer(map, el).on("tileerror", () => el.classList.add("tiles-failed"));
}

/** "Title (Fixed)". */
export function reportLabel(title: string, status: Status): string {
  return `${title} (${STATUS_LABELS[status] ?? status})`;
}

/** A report's link (and its status) as DOM nodes: a title is the reporter's text, never an HTML string. */
export function reportLink(title: string, status: Status | undefined, url: string | undefined): HTMLElement {
  const wrap = document.createElement("span");
  const name = document.createElement(url ? "a" : "span");
  if (url && name instanceof HTMLAnchorElement) name.href = url;
  name.textContent = title;
  wrap.append(name);
  if (status) wrap.append(` (${STATUS_LABELS[status] ?? status})`);
  return wrap;
}

/** A report's marker: its status's shape, its title as the tooltip and its title and status as its name. */
export function reportMarker(lat: number, lng: number, title: string, status: Status, url?: string): L.Marker {
  const marker = L.marker([lat, lng], { icon: iconFor(status), keyboard: true, title });
  const label = reportLabel(title, status);
  marker.on("add", () => marker.getElement()?.setAttribute("aria-label", label));
  marker.bindPopup(reportLink(title, status, url));
  return marker;
}
