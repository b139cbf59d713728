import * as L from "leaflet";

/** The zooms this site has tiles for, from `data-tile-zooms` ("MIN-MAX", config.ts `map.zooms`), when limited. */
function tileZooms(el: HTMLElement): { min: number; max: number } | null {
  const [min, max] = (el.dataset.tileZooms ?? "").split("-").map(Number);
  return Number.isInteger(min) && Number.isInteger(max) ? { min: min as number, max: max as number } : null;
}

/**
 * What the tiles bring to `map` before they come: it does not zoom out past the zooms they exist at, and its
 * attribution is in place. addTileLayer does it too; a map that sets its view before adding its tiles (in a later
 * step) calls this first, so that its view is never one the tiles refuse and the attribution does not grow later
 * (a layout shift).
 */
export function prepareForTiles(map: L.Map, el: HTMLElement): void {
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  // Counted per text by Leaflet: the tile layer adding the same text later shows it once.
  if (el.dataset.attribution) map.attributionControl.addAttribution(el.dataset.attribution);
  const zooms = tileZooms(el);
  if (zooms) map.setMinZoom(Math.max(map.getMinZoom(), zooms.min));
}

/**
 * The tile layer a map element's data attributes describe: `data-tile-url`, `data-attribution`, and while this site
 * serves the tiles, `data-tile-zooms` ("MIN-MAX", config.ts `map.zooms`), the only zooms it has tiles for. The map
 * then does not zoom out past MIN (no grey map of refused tiles) and enlarges MAX's tiles beyond it.
 */
export function addTileLayer(map: L.Map, el: HTMLElement): L.TileLayer {
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  const zooms = tileZooms(el);
  if (zooms) map.setMinZoom(Math.max(map.getMinZoom(), zooms.min));
  return L.tileLayer(el.dataset.tileUrl ?? "", {
    attribution: el.dataset.attribution ?? "",
    maxZoom: 19,
    ...(zooms ? { minZoom: zooms.min, maxNativeZoom: zooms.max } : {}),
  }).addTo(map);
}
