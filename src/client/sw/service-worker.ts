// The service worker (/sw.js, scope /). It keeps the app shell and the report flow on the device, versioned by the
// asset hashes (scripts/build.mjs bakes them in), so reporting works offline; a report sent while offline is saved
// as a draft and sent automatically later (online event, page load, visibility, Background Sync).
import { currentOwner, draftFromForm, saveDraft, sendWaitingDrafts } from "../_drafts.js";

declare const __SW_VERSION__: string;
declare const __PRECACHE__: string[];

// The worker's own global, typed here so this file can share the DOM library with the rest of src/client.
interface ExtendableEvt extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvt extends ExtendableEvt {
  request: Request;
  respondWith(response: Promise<Response> | Response): void;
}
interface SyncEvt extends ExtendableEvt {
  tag: string;
}
interface MessageEvt extends ExtendableEvt {
  data: unknown;
  origin: string;
}
interface SyncRegistration extends ServiceWorkerRegistration {
  sync?: { register(tag: string): Promise<void> };
}
interface WorkerScope {
  location: Location;
  registration: SyncRegistration;
  clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvt) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvt) => void): void;
  addEventListener(type: "sync", listener: (event: SyncEvt) => void): void;
  addEventListener(type: "message", listener: (event: MessageEvt) => void): void;
}
const sw = self as unknown as WorkerScope;

const CACHE = `civic-${__SW_VERSION__}`;
/**
 * The village's map tiles, kept apart from the pages and versioned by what the server says they are (its tile
 * server and area, /tiles/offline.json), not by this worker's version: a new release keeps them.
 */
const TILES = "civic-tiles-";
const SHELL = ["/", "/report", "/report/drafts", "/offline", "/status", "/manifest.webmanifest"];
export const SYNC_TAG = "send-drafts";

/** The report form of every category: the category list is the Open311 services list. */
async function reportFormPages(): Promise<string[]> {
  const response = await fetch("/api/v2/services.json");
  if (!response.ok) return [];
  const services = (await response.json()) as { service_code?: unknown }[];
  return services
    .map((s) => s.service_code)
    .filter((code): code is string => typeof code === "string")
    .slice(0, 100)
    .map((code) => `/report?category=${encodeURIComponent(code)}`);
}

/**
 * The pages kept at install, fetched without cookies: what is kept for offline use is the page as any visitor sees
 * it, never the one a signed-in person was shown (their name, a form token bound to their session).
 */
const anonymous = (url: string) => new Request(url, { credentials: "omit" });

sw.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll([...__PRECACHE__, ...SHELL].map(anonymous));
      await cache.addAll((await reportFormPages().catch(() => [])).map(anonymous));
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("civic-") && !name.startsWith(TILES) && name !== CACHE) await caches.delete(name);
      }
      await sw.clients.claim();
      // Not waited for: fetches wait until the worker is active.
      void keepVillageTiles(true);
    })(),
  );
});

/** What /tiles/offline.json says (src/maps/routes.ts): the tiles to keep, by zoom, and for how long. */
interface TilePlan {
  version: string;
  count: number;
  maxAgeSeconds: number;
  zooms: { z: number; minX: number; maxX: number; minY: number; maxY: number }[];
}

function isTilePlan(value: unknown): value is TilePlan {
  const plan = value as Partial<TilePlan> | null;
  return (
    typeof plan?.version === "string" &&
    /^[\w-]{1,64}$/.test(plan.version) &&
    typeof plan.count === "number" &&
    plan.count <= 5000 &&
    typeof plan.maxAgeSeconds === "number" &&
    Array.isArray(plan.zooms) &&
    plan.zooms.every((r) => [r.z, r.minX, r.maxX, r.minY, r.maxY].every(Number.isSafeInteger))
  );
}

/** When a kept tile is due to be fetched again: as long as the server said it may be kept, at most the plan's age. */
const KEPT_UNTIL = "x-kept-until";

function keptUntil(response: Response, maxAgeSeconds: number): string {
  const said = /max-age=(\d+)/.exec(response.headers.get("cache-control") ?? "")?.[1];
  const seconds = Math.min(maxAgeSeconds, said === undefined ? maxAgeSeconds : Number(said));
  return String(Date.now() + seconds * 1000);
}

let tilesCheckedAt = 0;
let keepingTiles: Promise<void> | null = null;
const TILES_CHECK_MS = 10 * 60 * 1000;

/**
 * Keeps the village's tiles at the report form's zooms on this device (about 310 for a village; the server bounds
 * them), so a report made offline can be put on a real map. Asked for by the installed app's pages (enhance.ts:
 * opened as an app, online, not saving data); then also when the worker starts and after pages load online
 * (`onlyIfKept`: only on a device that keeps them already), at most every ten minutes. Fetches the tiles it lacks or
 * keeps for longer than the server allows, stops at the first refusal (the site fetches only so many tiles a minute
 * from its tile server) or lost connection and goes on next time, and once every tile of a new version is kept,
 * drops the older version's. A browser tab that is not the installed app downloads none of them.
 */
function keepVillageTiles(onlyIfKept = false): Promise<void> {
  // An app's page asking while the worker looks whether to refresh asks again once it has looked.
  if (keepingTiles) return onlyIfKept ? keepingTiles : keepingTiles.then(() => keepVillageTiles());
  if (Date.now() - tilesCheckedAt < TILES_CHECK_MS) return Promise.resolve();
  keepingTiles = (async () => {
    if (onlyIfKept && !(await keepsTiles())) return;
    tilesCheckedAt = Date.now();
    await fillTiles();
  })()
    .catch(() => undefined)
    .finally(() => {
      keepingTiles = null;
    });
  return keepingTiles;
}

async function keepsTiles(): Promise<boolean> {
  return (await caches.keys()).some((name) => name.startsWith(TILES));
}

async function fillTiles(): Promise<void> {
  const answer = await fetch("/tiles/offline.json", { credentials: "omit", cache: "no-cache" });
  // No tile proxy (the maps load another server's tiles): nothing this worker may keep.
  if (!answer.ok) return;
  const plan: unknown = await answer.json();
  if (!isTilePlan(plan)) return;
  const name = `${TILES}${plan.version}`;
  const cache = await caches.open(name);
  let complete = true;
  fill: for (const r of plan.zooms) {
    for (let x = r.minX; x <= r.maxX; x++) {
      for (let y = r.minY; y <= r.maxY; y++) {
        const url = `/tiles/${r.z}/${x}/${y}.png`;
        const kept = await cache.match(url);
        if (kept && Number(kept.headers.get(KEPT_UNTIL)) > Date.now()) continue;
        let response: Response;
        try {
          response = await fetch(url, { credentials: "omit", cache: kept ? "no-cache" : "default" });
        } catch {
          complete = false;
          break fill;
        }
        if (response.status === 503 || response.status === 429) {
          complete = false;
          break fill;
        }
        if (!response.ok) {
          complete = false;
          continue;
        }
        const headers = new Headers(response.headers);
        headers.set(KEPT_UNTIL, keptUntil(response, plan.maxAgeSeconds));
        await cache.put(url, new Response(await response.blob(), { status: 200, headers }));
      }
    }
  }
  if (!complete) return;
  for (const other of await caches.keys()) {
    if (other.startsWith(TILES) && other !== name) await caches.delete(other);
  }
}

/** A map tile: the device's copy when there is one (kept fresh by keepVillageTiles), else from the network. */
async function tile(request: Request): Promise<Response> {
  const kept = await caches.match(new URL(request.url).pathname);
  if (kept) return kept;
  try {
    return await fetch(request);
  } catch {
    return new Response("", { status: 503, statusText: "Offline" });
  }
}

/** Where a page may be found in the cache: the report form by its category only, other pages without a query. */
function cacheKey(url: URL): string {
  if (url.pathname === "/report") {
    const category = url.searchParams.get("category");
    return category ? `/report?category=${encodeURIComponent(category)}` : "/report";
  }
  return url.pathname;
}

/**
 * A page from the device's copy. It was kept as anyone sees it, so it says nobody is signed in; it says instead
 * that it does not know who is (`device-owner` "unknown"), and the drafts it shows and saves are those of whoever
 * last used the site on this device (src/client/_drafts.ts currentOwner).
 */
async function fromDevice(cached: Response): Promise<Response> {
  if (!(cached.headers.get("content-type") ?? "").startsWith("text/html")) return cached;
  const html = (await cached.text()).replace(
    /<meta name="device-owner" content="[^"]*"/,
    '<meta name="device-owner" content="unknown"',
  );
  const headers = new Headers(cached.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(html, { status: cached.status, statusText: cached.statusText, headers });
}

async function offlinePage(): Promise<Response> {
  const cached = await caches.match("/offline");
  if (cached) return fromDevice(cached);
  return new Response("You are offline.", { status: 503, headers: { "content-type": "text/plain" } });
}

/**
 * Whether a page may be kept on this device. The server marks everything served to a signed-in person, or
 * carrying personal data, `Cache-Control: private, no-store` (core/http/private-responses.ts): never kept, so it
 * cannot be shown offline to the next person at this browser. (The worker cannot see the session cookie itself.)
 */
function mayKeep(response: Response): boolean {
  if (!response.ok || response.type !== "basic") return false;
  const cacheControl = (response.headers.get("cache-control") ?? "").toLowerCase();
  return !/(^|[\s,])(private|no-store)(?=$|[\s,=])/.test(cacheControl);
}

function isKeptAtInstall(url: URL): boolean {
  if (url.pathname === "/report" && url.searchParams.has("category")) return true;
  return SHELL.includes(url.pathname) && url.search === "";
}

/**
 * Drops every page this worker keeps except the anonymous ones kept at install (hashed assets stay: the same for
 * everyone). Asked for by the page when someone signs out or erases their data, and done whenever an answer says
 * `Clear-Site-Data`.
 */
async function purgePages(): Promise<void> {
  for (const name of await caches.keys()) {
    // The map tiles are the same for everyone.
    if (!name.startsWith("civic-") || name.startsWith(TILES)) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const url = new URL(request.url);
      if (url.pathname.startsWith("/assets/") || url.pathname.startsWith("/icons/") || isKeptAtInstall(url)) continue;
      await cache.delete(request);
    }
  }
}

/** Pages: the network first (fresh form tokens and content), the saved copy when offline, else the offline page. */
async function page(request: Request): Promise<Response> {
  const url = new URL(request.url);
  try {
    const response = await fetch(request);
    if (response.headers.has("clear-site-data")) await purgePages();
    if (mayKeep(response)) {
      const copy = response.clone();
      void caches.open(CACHE).then((cache) => cache.put(cacheKey(url), copy));
    }
    return response;
  } catch {
    const cached = await caches.match(cacheKey(url));
    return cached ? fromDevice(cached) : offlinePage();
  }
}

/** Hashed assets never change: from the cache when there, else from the network (and kept). */
async function asset(request: Request): Promise<Response> {
  const cached = await caches.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) {
    const copy = response.clone();
    void caches.open(CACHE).then((cache) => cache.put(request, copy));
  }
  return response;
}

/**
 * The report form's post: to the server when there is a connection. Without one the report is saved as a draft on
 * this device and the person is taken to the drafts page, which says so; it is sent by itself later.
 */
async function postReport(request: Request): Promise<Response> {
  const copy = request.clone();
  try {
    return await fetch(request);
  } catch {
    const form = await copy.formData();
    if (form.get("action") === "check") return offlinePage();
    // Saved for whoever is using the site on this device: the form page may be the device's copy, which cannot say.
    const draft = draftFromForm(form, await currentOwner());
    await saveDraft(draft);
    await sw.registration.sync?.register(SYNC_TAG).catch(() => undefined);
    return Response.redirect(new URL(`/report/drafts?saved=${draft.id}`, sw.location.origin).href, 303);
  }
}

sw.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== sw.location.origin || url.pathname.startsWith("/api/") || url.pathname === "/sw.js") return;
  if (request.method === "POST" && url.pathname === "/report" && request.mode === "navigate") {
    event.respondWith(postReport(request));
  } else if (request.method !== "GET") {
    return;
  } else if (url.pathname.startsWith("/assets/") || url.pathname.startsWith("/icons/")) {
    event.respondWith(asset(request));
  } else if (url.pathname.startsWith("/tiles/") && url.pathname.endsWith(".png")) {
    event.respondWith(tile(request));
  } else if (request.mode === "navigate") {
    event.respondWith(page(request));
    // Online pages keep the village's map up to date on this device (at most every ten minutes).
    if (navigator.onLine) event.waitUntil(keepVillageTiles(true));
  }
});

sw.addEventListener("message", (event) => {
  const data = event.data as { type?: unknown } | null;
  if (event.origin !== sw.location.origin) return;
  if (data?.type === "purge-pages") event.waitUntil(purgePages());
  else if (data?.type === "keep-tiles") event.waitUntil(keepVillageTiles());
});

sw.addEventListener("sync", (event) => {
  if (event.tag !== SYNC_TAG) return;
  // Rejecting tells the browser to try the sync again later.
  event.waitUntil(
    sendWaitingDrafts().then((s) => {
      if (s.waiting > 0) throw new Error("drafts still waiting");
    }),
  );
});
