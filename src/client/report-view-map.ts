// Maps on the reports list and a report's page. The same information is in the text, so they are an extra.
import L from "leaflet";

interface Point {
  lat: number;
  lng: number;
  title: string;
  url?: string;
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
  const map = L.map(el, { keyboard: true, scrollWheelZoom: false });
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  const tiles = L.tileLayer(el.dataset.tileUrl ?? "", {
    attribution: el.dataset.attribution ?? "",
    maxZoom: 19,
  }).addTo(map);
  tiles.on("tileerror", () => el.classList.add("tiles-failed"));
  const icon = L.divIcon({ className: "report-pin", iconSize: [28, 28], iconAnchor: [14, 28] });
  for (const p of points) {
    const marker = L.marker([p.lat, p.lng], { icon, keyboard: !!p.url, title: p.title, alt: p.title }).addTo(map);
    if (p.url) {
      // A report title is the reporter's text: a DOM node, never an HTML string (Leaflet parses strings as HTML).
      const link = document.createElement("a");
      link.href = p.url;
      link.textContent = p.title;
      marker.bindPopup(link);
    }
  }
  const group = L.latLngBounds(points.map((p) => [p.lat, p.lng] as [number, number]));
  map.fitBounds(group.pad(0.2), { maxZoom: 17 });
}
