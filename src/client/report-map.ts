// The map on the report form: click, tap or use the keyboard to put the pin where the problem is. Without this
// script (or when map tiles fail to load) the street list and the place description still work.
import * as L from "leaflet";
import { addTileLayer } from "./_tiles.js";

const el = document.getElementById("report-map");
if (el) init(el);
checkPhotosBeforeSending();

/**
 * Too many or too large photos would be refused as a whole request, losing what was typed; say so before sending.
 * The server checks again either way.
 */
function checkPhotosBeforeSending(): void {
  const input = document.getElementById("photos") as HTMLInputElement | null;
  const form = input?.form;
  if (!input || !form) return;
  const maxPhotos = Number(input.dataset.maxPhotos);
  const maxBytes = Number(input.dataset.maxBytes);
  const message = document.createElement("span");
  message.className = "field-error";
  message.id = "photos-client-error";
  const problem = (): string | null => {
    const files = Array.from(input.files ?? []);
    const kept = form.querySelectorAll('input[name="kept_photo"]:checked').length;
    if (files.length + kept > maxPhotos) {
      return kept > 0
        ? `Choose at most ${maxPhotos} photos, counting the ${kept} you already added.`
        : `Choose at most ${maxPhotos} photos.`;
    }
    const big = files.find((f) => f.size > maxBytes);
    if (big) return `“${big.name}” is larger than ${Math.round(maxBytes / 1048576)} MB.`;
    return null;
  };
  const show = (): boolean => {
    const text = problem();
    if (text) {
      message.textContent = text;
      if (!message.isConnected) input.before(message);
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", `${input.getAttribute("aria-describedby") ?? ""} ${message.id}`.trim());
    } else if (message.isConnected) {
      message.remove();
      input.removeAttribute("aria-invalid");
    }
    return text === null;
  };
  input.addEventListener("change", show);
  form.addEventListener("submit", (event) => {
    if (!show()) {
      event.preventDefault();
      input.focus();
    }
  });
}

interface NearbyItem {
  reference: string;
  title: string;
  status: string;
  distanceM: number;
  url: string;
}

function numbers(value: string | undefined): number[] {
  return (value ?? "").split(",").map(Number);
}

function init(el: HTMLElement): void {
  const latInput = document.getElementById("lat") as HTMLInputElement | null;
  const lngInput = document.getElementById("lng") as HTMLInputElement | null;
  const statusEl = document.getElementById("map-status");
  const help = document.getElementById("map-help");
  const placeSelect = document.getElementById("place") as HTMLSelectElement | null;
  const nearby = document.getElementById("nearby");
  if (!latInput || !lngInput) return;
  const say = (text: string) => {
    if (statusEl) statusEl.textContent = text;
  };

  const [cLat = 0, cLng = 0] = numbers(el.dataset.centre);
  const [south = -90, west = -180, north = 90, east = 180] = numbers(el.dataset.bounds);
  const bounds = L.latLngBounds([south, west], [north, east]);

  el.hidden = false;
  if (help) help.hidden = false;
  // The hint speaks of the map only once there is one (without this script, the form has none).
  const hintWithMap = document.getElementById("location-hint-map");
  const hintWithout = document.getElementById("location-hint-text");
  if (hintWithMap && hintWithout) {
    hintWithMap.hidden = false;
    hintWithout.hidden = true;
  }
  el.setAttribute("role", "application");
  el.setAttribute("aria-label", "Map of the village for placing the report pin");
  if (help) el.setAttribute("aria-describedby", "map-help");

  const map = L.map(el, { maxBounds: bounds.pad(0.25), minZoom: 13, maxZoom: 19, keyboard: true }).setView(
    [cLat, cLng],
    16,
  );
  const tiles = addTileLayer(map, el);
  let tilesFailed = false;
  tiles.on("tileerror", () => {
    if (tilesFailed) return;
    tilesFailed = true;
    el.classList.add("tiles-failed");
    say("The map pictures could not be loaded. You can still put the pin on the map, or choose a street below.");
  });

  const cross = document.createElement("div");
  cross.className = "map-crosshair";
  cross.setAttribute("aria-hidden", "true");
  el.appendChild(cross);

  let marker: L.Marker | null = null;
  const icon = L.divIcon({ className: "report-pin", iconSize: [28, 28], iconAnchor: [14, 28] });

  function describe(latlng: L.LatLng): string {
    let best: { name: string; d: number } | null = null;
    for (const option of Array.from(placeSelect?.options ?? [])) {
      const lat = Number(option.dataset.lat);
      const lng = Number(option.dataset.lng);
      if (!option.value || !Number.isFinite(lat) || !Number.isFinite(lng)) continue;
      const d = latlng.distanceTo([lat, lng]);
      if (!best || d < best.d) best = { name: option.textContent ?? "", d };
    }
    return best ? `, about ${Math.round(best.d)} metres from ${best.name}` : "";
  }

  function place(latlng: L.LatLng, announce = true): void {
    if (!bounds.contains(latlng)) {
      say("That is outside the village. Put the pin inside the village area.");
      return;
    }
    if (!marker) {
      marker = L.marker(latlng, { draggable: true, keyboard: true, icon, title: "Report pin", alt: "Report pin" });
      marker.addTo(map);
      marker.on("dragend", () => marker && place(marker.getLatLng()));
      const iconEl = marker.getElement();
      iconEl?.setAttribute("aria-label", "Report pin: use the arrow keys to move it");
      iconEl?.addEventListener("keydown", (event) => {
        const step: Record<string, [number, number]> = {
          ArrowUp: [0, -10],
          ArrowDown: [0, 10],
          ArrowLeft: [-10, 0],
          ArrowRight: [10, 0],
        };
        const d = step[event.key];
        if (!d || !marker) return;
        event.preventDefault();
        event.stopPropagation();
        const p = map.latLngToContainerPoint(marker.getLatLng()).add(d);
        place(map.containerPointToLatLng(p));
      });
    } else {
      marker.setLatLng(latlng);
    }
    latInput!.value = latlng.lat.toFixed(6);
    lngInput!.value = latlng.lng.toFixed(6);
    if (announce) say(`Pin placed${describe(latlng)}.`);
    void checkNearby(latlng);
  }

  map.on("click", (event: L.LeafletMouseEvent) => place(event.latlng));
  el.addEventListener("keydown", (event) => {
    if (event.target !== el) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      place(map.getCenter());
    }
  });

  placeSelect?.addEventListener("change", () => {
    const option = placeSelect.selectedOptions[0];
    const lat = Number(option?.dataset.lat);
    const lng = Number(option?.dataset.lng);
    if (option?.value && Number.isFinite(lat) && Number.isFinite(lng)) {
      map.setView([lat, lng], 17);
      if (!marker) void checkNearby(L.latLng(lat, lng));
    }
  });

  if ("geolocation" in navigator) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.textContent = "Use my location";
    button.addEventListener("click", () => {
      say("Finding your location…");
      navigator.geolocation.getCurrentPosition(
        (pos) => {
          const latlng = L.latLng(pos.coords.latitude, pos.coords.longitude);
          if (!bounds.contains(latlng)) {
            say("You seem to be outside the village. Put the pin on the map or choose a street instead.");
            return;
          }
          map.setView(latlng, 18);
          place(latlng);
        },
        () => say("Your location is not available. Put the pin on the map or choose a street instead."),
        { enableHighAccuracy: true, timeout: 15_000, maximumAge: 60_000 },
      );
    });
    el.insertAdjacentElement("afterend", button);
  }

  const lat = Number.parseFloat(latInput.value);
  const lng = Number.parseFloat(lngInput.value);
  if (Number.isFinite(lat) && Number.isFinite(lng)) {
    map.setView([lat, lng], 17);
    place(L.latLng(lat, lng), false);
  }

  let lastQuery = "";
  async function checkNearby(latlng: L.LatLng): Promise<void> {
    if (!nearby) return;
    const params = new URLSearchParams({
      category: el.dataset.category ?? "",
      lat: latlng.lat.toFixed(6),
      lng: latlng.lng.toFixed(6),
    });
    const query = params.toString();
    if (query === lastQuery) return;
    lastQuery = query;
    try {
      const res = await fetch(`/report/nearby.json?${query}`, { headers: { accept: "application/json" } });
      if (!res.ok || query !== lastQuery) return;
      const body = (await res.json()) as { reports: NearbyItem[] };
      renderNearby(nearby, body.reports);
    } catch {
      // Suggestions are a convenience: the report can be sent without them.
    }
  }
}

function renderNearby(section: HTMLElement, items: NearbyItem[]): void {
  section.replaceChildren();
  if (items.length === 0) {
    section.removeAttribute("aria-labelledby");
    return;
  }
  const h2 = document.createElement("h2");
  h2.id = "nearby-title";
  h2.textContent = "Already reported?";
  const p = document.createElement("p");
  p.textContent =
    "These reports of the same kind are close to the place you chose. If one of them is your problem, there is no need to report it again.";
  const ul = document.createElement("ul");
  for (const item of items) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = item.url;
    a.textContent = item.title;
    li.append(a, ` (${item.status}, about ${item.distanceM} m away)`);
    ul.append(li);
  }
  section.setAttribute("aria-labelledby", "nearby-title");
  section.append(h2, p, ul);
}
