// The map on a report's page: where it is, its marker showing its status. Its space is kept in the page (a box
// of fixed proportions), so drawing it moves nothing; the same information is in the text. It is drawn after the
// page's first paint, in two short steps (_tasks.ts), so that a phone's slow CPU meets no long task here.
import * as L from "leaflet";
import { prepareForTiles } from "./_tiles.js";
import { addTiles, reportMarker, type Status } from "./_map-status.js";
import { afterPaint, nextTask } from "./_tasks.js";

interface Point {
  lat: number;
  lng: number;
  title: string;
  status: Status;
}

async function draw(el: HTMLElement): Promise<void> {
  let points: Point[];
  try {
    points = JSON.parse(el.dataset.points ?? "[]") as Point[];
  } catch {
    return;
  }
  const [p] = points;
  if (!p) return;
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", el.dataset.label ?? "Map");
  // No fading in of tiles: that is work on every frame while they load.
  const map = L.map(el, { keyboard: true, scrollWheelZoom: false, maxZoom: 19, fadeAnimation: false });
  prepareForTiles(map, el);
  // The map's panes are in the page: let the browser lay them out in its next frame before the view is set (it
  // reads their size), rather than force that layout here. Then the marker, then the tiles, each a step.
  await afterPaint();
  map.setView([p.lat, p.lng], 17);
  await nextTask();
  reportMarker(p.lat, p.lng, p.title, p.status).addTo(map);
  await nextTask();
  addTiles(map, el);
}

const maps = Array.from(document.querySelectorAll<HTMLElement>(".report-view-map[data-points]"));
if (maps.length) {
  void afterPaint().then(async () => {
    for (const el of maps) {
      await draw(el);
      await nextTask();
    }
  });
}
