import * as L from "leaflet";

/**
 * The tile layer a map element's data attributes describe: `data-tile-url`, `data-attribution`, and while this site
 * serves the tiles, `data-tile-zooms` ("MIN-MAX", config.ts `map.zooms`), the only zooms it has tiles for. The map
 * then does not zoom out past MIN (no grey map of refused tiles) and enlarges MAX's tiles beyond it.
 */
export function addTileLayer(map: L.Map, el: HTMLElement): L.TileLayer {
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  const [min, max] = (el.dataset.tileZooms ?? "").split("-").map(Number);
  const limited = Number.isInteger(min) && Number.isInteger(max);
  if (limited) map.setMinZoom(Math.max(map.getMinZoom(), min as number));
  return L.tileLayer(el.dataset.tileUrl ?? "", {
    attribution: el.dataset.attribution ?? "",
    maxZoom: 19,
    ...(limited ? { minZoom: min as number, maxNativeZoom: max as number } : {}),
  }).addTo(map);
}
