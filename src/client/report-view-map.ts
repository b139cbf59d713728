// The map on a report's page: where it is, its marker showing its status. Its space is kept in the page (a box
// of fixed proportions), so drawing it moves nothing; the same information is in the text.
import L from "leaflet";
import { addTiles, reportMarker, type Status } from "./_map-status.js";

interface Point {
  lat: number;
  lng: number;
  title: string;
  status: Status;
}

for (const el of Array.from(document.querySelectorAll<HTMLElement>(".report-view-map[data-points]"))) {
  let points: Point[];
  try {
    points = JSON.parse(el.dataset.points ?? "[]") as Point[];
  } catch {
    continue;
  }
  const [p] = points;
  if (!p) continue;
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", el.dataset.label ?? "Map");
  const map = L.map(el, { keyboard: true, scrollWheelZoom: false, maxZoom: 19 });
  addTiles(map, el);
  reportMarker(p.lat, p.lng, p.title, p.status).addTo(map);
  map.setView([p.lat, p.lng], 17);
}
