// The map of every report that matches the list's filters (/reports). It asks /api/reports/map.json for the
// reports in view each time the map moves or zooms: each report (grouped here with supercluster when close on
// screen) or, at a low zoom or past 500 of them, counts per cell made by the server. A group shows how many reports
// it holds and zooms in on click or Enter; reports that share one spot, which never part, are listed as links in
// its popup. Beside the map: how many reports are in view (read out politely), the list of them, and "Report a
// problem here" at the centre of the map. Markers tell the status by shape and label (_map-status.ts).
import L from "leaflet";
import Supercluster from "supercluster";
import { addTiles, reportLink, reportMarker, type Status } from "./_map-status.js";

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

const plural = (n: number, one: string) => `${n.toLocaleString("en-GB")} ${one}${n === 1 ? "" : "s"}`;

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

function start(el: HTMLElement): void {
  const section = el.closest(".reports-map");
  const summary = section?.querySelector<HTMLElement>(".map-summary");
  const listed = section?.querySelector<HTMLElement>(".map-in-view");
  const here = section?.querySelector<HTMLAnchorElement>(".report-here");
  const source = el.dataset.mapUrl ?? "";
  const linkBase = el.dataset.linkBase ?? "/reports/";
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", el.dataset.label ?? "Map");
  const map = L.map(el, { keyboard: true, scrollWheelZoom: false, maxZoom: MAX_ZOOM });
  addTiles(map, el);
  const layer = L.layerGroup().addTo(map);

  const pointMarker = (p: Point) => reportMarker(p[1], p[2], p[4], p[3], `${linkBase}${p[0]}`);

  function drawPoints(points: Point[], zoom: number, box: [number, number, number, number]) {
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
        layer.addLayer(pointMarker((props as { p: Point }).p));
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
          item.append(reportLink(title, status, `${linkBase}${reference}`));
          list.append(item);
        }
        marker.bindPopup(list);
      } else {
        opens(marker, () => map.setView([lat, lng], expandTo));
      }
      layer.addLayer(marker);
    }
  }

  function show(answer: Answer, zoom: number, box: [number, number, number, number]) {
    layer.clearLayers();
    const counted = answer.clusters.length > 0;
    if (counted) {
      for (const [lat, lng, count] of answer.clusters) {
        const marker = groupMarker(lat, lng, count);
        opens(marker, () => map.setView([lat, lng], Math.min(zoom + 2, MAX_ZOOM)));
        layer.addLayer(marker);
      }
      for (const p of answer.points) layer.addLayer(pointMarker(p));
    } else {
      drawPoints(answer.points, zoom, box);
    }
    if (summary) {
      summary.textContent =
        answer.total === 0
          ? "No reports in view."
          : `${plural(answer.total, "report")} in view.${counted ? " Zoom in to list them." : ""}`;
    }
    if (listed) {
      listed.replaceChildren();
      const shown = counted ? [] : answer.points.slice(0, LISTED);
      for (const [reference, , , status, title] of shown) {
        const item = document.createElement("li");
        item.append(reportLink(title, status, `${linkBase}${reference}`));
        listed.append(item);
      }
      if (!counted && answer.points.length > LISTED) {
        const more = document.createElement("li");
        more.textContent = `And ${plural(answer.points.length - LISTED, "more report")}: zoom in to list them.`;
        listed.append(more);
      }
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
      if (pending === mine) show(answer, zoom, box);
    } catch {
      if (mine.signal.aborted) return;
      if (summary) summary.textContent = "The map could not load the reports. The list below has every report.";
    }
  }

  map.on("moveend", () => void load());
  const [south, west, north, east] = (el.dataset.bounds ?? "").split(",").map(Number);
  if ([south, west, north, east].every((n) => Number.isFinite(n))) {
    map.fitBounds([
      [south as number, west as number],
      [north as number, east as number],
    ]);
  } else {
    map.setView([0, 0], 2);
  }
}

const el = document.querySelector<HTMLElement>(".reports-map-canvas[data-map-url]");
if (el) start(el);
