// The map of every report that matches the list's filters (/reports). It asks /api/reports/map.json for the
// reports in view each time the map moves or zooms: each report (grouped here with supercluster when close on
// screen) or, at a low zoom or past 500 of them, counts per cell made by the server. A group shows how many reports
// it holds and zooms in on click or Enter; reports that share one spot, which never part, are listed as links in
// its popup. Beside the map: how many reports are in view (read out politely), the list of them, and "Report a
// problem here" at the centre of the map. Markers tell the status by shape and label (_map-status.ts).
// It starts after the page's first paint and works in short steps (_tasks.ts): on a phone no step is a long task.
import * as L from "leaflet";
import Supercluster from "supercluster";
import { prepareForTiles } from "./_tiles.js";
import { addTiles, reportLink, reportMarker, type Status } from "./_map-status.js";
import { afterPaint, inSlices, nextTask } from "./_tasks.js";

type Point = [reference: string, lat: number, lng: number, status: Status, title: string];
interface Answer {
  total: number;
  points: Point[];
  clusters: [lat: number, lng: number, count: number][];
}

/** Grouping radius in supercluster's units (a 512-unit tile; Leaflet's tiles are 256 px): 40 px on screen. */
const RADIUS = 80;
const MAX_ZOOM = 19;
/** The most reports listed beside the map; past it, the list says how many more there are. */
const LISTED = 100;

/** "1 report", "1,200 reports" (not toLocaleString: its first call sets up the browser's number formats, a long task). */
const plural = (n: number, one: string) =>
  `${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} ${one}${n === 1 ? "" : "s"}`;

function groupMarker(lat: number, lng: number, count: number): L.Marker {
  const label = `${count} reports here`;
  const icon = L.divIcon({
    className: "report-cluster",
    html: `<span aria-hidden="true">${count}</span>`,
    iconSize: [36, 36],
    iconAnchor: [18, 18],
  });
  const marker = L.marker([lat, lng], { icon, keyboard: true, title: label });
  marker.on("add", () => marker.getElement()?.setAttribute("aria-label", label));
  return marker;
}

/** Zooms in on a group on click or Enter (Leaflet turns Enter on a marker into a popup, not a click). */
function opens(marker: L.Marker, open: () => void): void {
  marker.on("click", open);
  marker.on("keypress", (e: L.LeafletKeyboardEvent) => {
    if (e.originalEvent.key === "Enter") open();
  });
}

async function start(el: HTMLElement): Promise<void> {
  await afterPaint();
  const section = el.closest(".reports-map");
  const summary = section?.querySelector<HTMLElement>(".map-summary");
  const listed = section?.querySelector<HTMLElement>(".map-in-view");
  const here = section?.querySelector<HTMLAnchorElement>(".report-here");
  const source = el.dataset.mapUrl ?? "";
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", el.dataset.label ?? "Map");
  // No fading in of tiles: that is work on every frame while they load.
  const map = L.map(el, { keyboard: true, scrollWheelZoom: false, maxZoom: MAX_ZOOM, fadeAnimation: false });
  prepareForTiles(map, el);
  const layer = L.layerGroup().addTo(map);

  const pointMarker = (p: Point) => reportMarker(p[1], p[2], p[4], p[3], `/reports/${p[0]}`);

  /** The markers for `points` (grouped when close on screen at `zoom`), not yet on the map. */
  function pointLayers(points: Point[], zoom: number, box: [number, number, number, number]): L.Marker[] {
    const markers: L.Marker[] = [];
    const index = new Supercluster<{ p: Point }>({ radius: RADIUS, maxZoom: MAX_ZOOM });
    index.load(
      points.map((p) => ({
        type: "Feature" as const,
        geometry: { type: "Point" as const, coordinates: [p[2], p[1]] },
        properties: { p },
      })),
    );
    for (const feature of index.getClusters(box, zoom)) {
      const [lng, lat] = feature.geometry.coordinates as [number, number];
      const props = feature.properties;
      if (!("cluster" in props) || !props.cluster) {
        markers.push(pointMarker((props as { p: Point }).p));
        continue;
      }
      const id = props.cluster_id as number;
      const marker = groupMarker(lat, lng, props.point_count as number);
      const expandTo = index.getClusterExpansionZoom(id);
      if (expandTo > MAX_ZOOM) {
        // They share one spot: list them instead of zooming.
        const list = document.createElement("ul");
        list.className = "report-cluster-list";
        for (const leaf of index.getLeaves(id, Infinity)) {
          const [reference, , , status, title] = leaf.properties.p;
          const item = document.createElement("li");
          item.append(reportLink(title, status, `/reports/${reference}`));
          list.append(item);
        }
        marker.bindPopup(list);
      } else {
        opens(marker, () => map.setView([lat, lng], expandTo));
      }
      markers.push(marker);
    }
    return markers;
  }

  /**
   * Draws an answer in steps: the markers a slice at a time, then the list beside the map, built aside and put in
   * at once (one change to the page, read out once). Stops when a newer answer is on its way (`stale`).
   */
  async function show(answer: Answer, zoom: number, box: [number, number, number, number], stale: () => boolean) {
    const counted = answer.clusters.length > 0;
    let markers: L.Marker[];
    if (counted) {
      markers = answer.clusters.map(([lat, lng, count]) => {
        const marker = groupMarker(lat, lng, count);
        opens(marker, () => map.setView([lat, lng], Math.min(zoom + 2, MAX_ZOOM)));
        return marker;
      });
      markers.push(...answer.points.map(pointMarker));
    } else {
      markers = pointLayers(answer.points, zoom, box);
    }
    await nextTask();
    if (stale()) return;
    layer.clearLayers();
    if (!(await inSlices(markers, (marker) => layer.addLayer(marker), stale))) return;
    const items = document.createDocumentFragment();
    const shown = counted ? [] : answer.points.slice(0, LISTED);
    if (
      !(await inSlices(
        shown,
        ([reference, , , status, title]) => {
          const item = document.createElement("li");
          item.append(reportLink(title, status, `/reports/${reference}`));
          items.append(item);
        },
        stale,
      ))
    )
      return;
    if (!counted && answer.points.length > LISTED) {
      const more = document.createElement("li");
      more.textContent = `And ${plural(answer.points.length - LISTED, "more report")}: zoom in to list them.`;
      items.append(more);
    }
    listed?.replaceChildren(items);
    if (summary) {
      summary.textContent =
        answer.total === 0
          ? "No reports in view."
          : `${plural(answer.total, "report")} in view.${counted ? " Zoom in to list them." : ""}`;
    }
  }

  let pending: AbortController | null = null;
  async function load() {
    const b = map.getBounds();
    const zoom = Math.round(map.getZoom());
    // Rounded outwards, so the box holds all that is in view.
    const box: [number, number, number, number] = [
      Math.max(-180, Math.floor(b.getWest() * 1e4) / 1e4),
      Math.max(-90, Math.floor(b.getSouth() * 1e4) / 1e4),
      Math.min(180, Math.ceil(b.getEast() * 1e4) / 1e4),
      Math.min(90, Math.ceil(b.getNorth() * 1e4) / 1e4),
    ];
    if (here) {
      const c = map.getCenter();
      here.href = `/report?lat=${c.lat.toFixed(5)}&lng=${c.lng.toFixed(5)}`;
    }
    pending?.abort();
    const mine = new AbortController();
    pending = mine;
    const url = `${source}${source.includes("?") ? "&" : "?"}bbox=${box.map((n) => n.toFixed(4)).join(",")}&zoom=${zoom}`;
    try {
      const res = await fetch(url, { signal: mine.signal, headers: { accept: "application/json" } });
      if (!res.ok) throw new Error(String(res.status));
      const answer = (await res.json()) as Answer;
      if (pending === mine) await show(answer, zoom, box, () => pending !== mine);
    } catch {
      if (mine.signal.aborted) return;
      if (summary) summary.textContent = "The map could not load the reports. The list below has every report.";
    }
  }

  map.on("moveend", () => void load());
  // The map's panes are in the page: let the browser lay them out in its next frame before the view is set (it
  // reads their size), rather than force that layout here.
  await afterPaint();
  const [south, west, north, east] = (el.dataset.bounds ?? "").split(",").map(Number);
  if ([south, west, north, east].every((n) => Number.isFinite(n))) {
    map.fitBounds([
      [south as number, west as number],
      [north as number, east as number],
    ]);
  } else {
    map.setView([0, 0], 2);
  }
  // The tiles in a step of their own (the view is set, its reports are on their way).
  await nextTask();
  addTiles(map, el);
}

const el = document.querySelector<HTMLElement>(".reports-map-canvas[data-map-url]");
if (el) void start(el);
