// Maps on the reports list and a report's page. The same information is in the text, so they are an extra.
// Pins close together on screen are grouped (supercluster) into one marker showing how many reports it holds:
// pressing it (click or Enter) zooms in until they part, and reports that share one spot, which never part, are
// listed in its popup as links. So every report can be reached, and no pin sits on another one (target size).
import L from "leaflet";
import Supercluster from "supercluster";

interface Point {
  lat: number;
  lng: number;
  title: string;
  url?: string;
}

/** Grouping radius in supercluster's units (a 512-unit tile; Leaflet's tiles are 256 px): 40 px on screen. */
const RADIUS = 80;
const MAX_ZOOM = 19;

/** A report's link as a DOM node: a title is the reporter's text, never an HTML string (Leaflet parses strings). */
function reportLink(p: Point): HTMLElement {
  if (!p.url) {
    const span = document.createElement("span");
    span.textContent = p.title;
    return span;
  }
  const link = document.createElement("a");
  link.href = p.url;
  link.textContent = p.title;
  return link;
}

for (const el of Array.from(document.querySelectorAll<HTMLElement>(".report-view-map[data-points]"))) {
  let points: Point[];
  try {
    points = JSON.parse(el.dataset.points ?? "[]") as Point[];
  } catch {
    continue;
  }
  if (points.length === 0) continue;
  el.hidden = false;
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", el.dataset.label ?? "Map");
  const map = L.map(el, { keyboard: true, scrollWheelZoom: false, maxZoom: MAX_ZOOM });
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  const tiles = L.tileLayer(el.dataset.tileUrl ?? "", {
    attribution: el.dataset.attribution ?? "",
    maxZoom: MAX_ZOOM,
  }).addTo(map);
  tiles.on("tileerror", () => el.classList.add("tiles-failed"));

  const index = new Supercluster<Point>({ radius: RADIUS, maxZoom: MAX_ZOOM });
  index.load(
    points.map((p) => ({
      type: "Feature" as const,
      geometry: { type: "Point" as const, coordinates: [p.lng, p.lat] },
      properties: p,
    })),
  );
  const pin = L.divIcon({ className: "report-pin", iconSize: [28, 28], iconAnchor: [14, 28] });
  const layer = L.layerGroup().addTo(map);

  const draw = () => {
    layer.clearLayers();
    const b = map.getBounds();
    const zoom = Math.round(map.getZoom());
    for (const feature of index.getClusters([b.getWest(), b.getSouth(), b.getEast(), b.getNorth()], zoom)) {
      const [lng, lat] = feature.geometry.coordinates as [number, number];
      const props = feature.properties;
      if (!("cluster" in props) || !props.cluster) {
        const p = props as Point;
        const marker = L.marker([lat, lng], { icon: pin, keyboard: !!p.url, title: p.title, alt: p.title });
        if (p.url) marker.bindPopup(reportLink(p));
        layer.addLayer(marker);
        continue;
      }
      const id = props.cluster_id as number;
      const count = props.point_count as number;
      const label = `${count} reports here`;
      const icon = L.divIcon({
        className: "report-cluster",
        html: `<span>${count}</span>`,
        iconSize: [36, 36],
        iconAnchor: [18, 18],
      });
      const marker = L.marker([lat, lng], { icon, keyboard: true, title: label, alt: label });
      const expandTo = index.getClusterExpansionZoom(id);
      if (expandTo > MAX_ZOOM) {
        // They share one spot: list them instead of zooming.
        const list = document.createElement("ul");
        list.className = "report-cluster-list";
        for (const leaf of index.getLeaves(id, Infinity)) {
          const item = document.createElement("li");
          item.append(reportLink(leaf.properties));
          list.append(item);
        }
        marker.bindPopup(list);
      } else {
        // Leaflet turns Enter on a marker into a popup, not a click: both open the group here.
        const open = () => map.setView([lat, lng], expandTo);
        marker.on("click", open);
        marker.on("keypress", (e: L.LeafletKeyboardEvent) => {
          if (e.originalEvent.key === "Enter") open();
        });
      }
      layer.addLayer(marker);
    }
  };
  map.on("moveend", draw);
  const group = L.latLngBounds(points.map((p) => [p.lat, p.lng] as [number, number]));
  map.fitBounds(group.pad(0.2), { maxZoom: 17 });
}
