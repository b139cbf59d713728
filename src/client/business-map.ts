// Shows a business's location on a map on /businesses/{id}. The address and an OpenStreetMap link are on the page
// already, so without this script nothing is lost.
import * as L from "leaflet";
import { addTileLayer } from "./_tiles.js";

const el = document.getElementById("business-map");
if (el) {
  const lat = Number(el.dataset.lat);
  const lng = Number(el.dataset.lng);
  const tileUrl = el.dataset.tileUrl;
  if (Number.isFinite(lat) && Number.isFinite(lng) && tileUrl) {
    el.hidden = false;
    el.setAttribute("role", "region");
    el.setAttribute("aria-label", `Map showing where ${el.dataset.name ?? "the business"} is`);
    const map = L.map(el, { scrollWheelZoom: false }).setView([lat, lng], 17);
    addTileLayer(map, el);
    // A vector marker: no marker images to load.
    // A business name is dataset text: Leaflet would parse a string as HTML, so it gets a text node.
    const name = document.createElement("span");
    name.textContent = el.dataset.name ?? "";
    L.circleMarker([lat, lng], { radius: 10, weight: 3, color: "#0b4f8a", fillOpacity: 0.6 })
      .addTo(map)
      .bindTooltip(name);
  }
}
