// The service worker (/sw.js, scope /). It keeps the app shell and the report flow on the device, versioned by the
// asset hashes (scripts/build.mjs bakes them in), so reporting works offline; a report sent while offline is saved
// as a draft and sent automatically later (online event, page load, visibility, Background Sync).
import { draftFromForm, saveDraft, sendWaitingDrafts } from "../_drafts.js";

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
}
const sw = self as unknown as WorkerScope;

const CACHE = `civic-${__SW_VERSION__}`;
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

sw.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll([...__PRECACHE__, ...SHELL]);
      await cache.addAll(await reportFormPages().catch(() => []));
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("civic-") && name !== CACHE) await caches.delete(name);
      }
      await sw.clients.claim();
    })(),
  );
});

/** Where a page may be found in the cache: the report form by its category only, other pages without a query. */
function cacheKey(url: URL): string {
  if (url.pathname === "/report") {
    const category = url.searchParams.get("category");
    return category ? `/report?category=${encodeURIComponent(category)}` : "/report";
  }
  return url.pathname;
}

async function offlinePage(): Promise<Response> {
  const cached = await caches.match("/offline");
  return cached ?? new Response("You are offline.", { status: 503, headers: { "content-type": "text/plain" } });
}

/** Pages: the network first (fresh form tokens and content), the saved copy when offline, else the offline page. */
async function page(request: Request): Promise<Response> {
  const url = new URL(request.url);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") {
      const copy = response.clone();
      void caches.open(CACHE).then((cache) => cache.put(cacheKey(url), copy));
    }
    return response;
  } catch {
    return (await caches.match(cacheKey(url))) ?? offlinePage();
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
    const draft = draftFromForm(form);
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
  } else if (request.mode === "navigate") {
    event.respondWith(page(request));
  }
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
