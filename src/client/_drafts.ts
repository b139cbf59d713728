// Reports saved on this device (IndexedDB through idb), shared by the pages and the service worker. A draft is only
// deleted once the server has answered with a reference; a refused one stays, with the reason, to be corrected.
// Each draft belongs to the session that saved it (its `owner`: an account's opaque key, or "anonymous", from the
// page's <meta name="device-owner">, core/web/device-owner.ts): it is listed and sent only while that owner is using
// the site on this device, and the server refuses it from any other session.
import { type DBSchema, type IDBPDatabase, openDB } from "idb";

export interface DraftPhoto {
  name: string;
  type: string;
  blob: Blob;
}

export interface Draft {
  id: string;
  /** Who saved it: an account's owner key or "anonymous". Drafts saved before owners existed count as anonymous. */
  owner?: string;
  /** The Idempotency-Key of this content: kept for every retry, replaced when the draft is edited. */
  key: string;
  createdAt: number;
  updatedAt: number;
  /** The form's text fields in order, as the web form posts them. */
  fields: [string, string][];
  photos: DraftPhoto[];
  state: "waiting" | "refused";
  /** Why the server refused it, in words for the person. */
  problems?: string[];
}

export interface ArrivedReport {
  id: string;
  /** The owner of the draft it was. */
  owner?: string;
  reference: string;
  title: string;
  arrivedAt: number;
}

interface DraftsSchema extends DBSchema {
  drafts: { key: string; value: Draft };
  arrived: { key: string; value: ArrivedReport };
}

/**
 * A database of its own, so the drafts' database keeps its version (an upgrade would wait for every open page of
 * the older version to close).
 */
interface DeviceSchema extends DBSchema {
  /** "owner": who was last using the site on this device, as the last page from the server said. */
  device: { key: string; value: string };
}

export const ANONYMOUS = "anonymous";
/** What a page served from the device's copy says: its owner is whoever last used the site here. */
const UNKNOWN = "unknown";
const ownerOf = (d: { owner?: string }) => d.owner ?? ANONYMOUS;

export const APP_REPORTS_PATH = "/api/app/reports";
/** Form fields that are not part of a draft: the form token is stale by the time it is sent. */
const NOT_SAVED = new Set(["_csrf", "draft_id"]);
const ARRIVED_KEPT = 20;

let opened: Promise<IDBPDatabase<DraftsSchema>> | undefined;
function database(): Promise<IDBPDatabase<DraftsSchema>> {
  opened ??= openDB<DraftsSchema>("civic-drafts", 1, {
    upgrade(db) {
      db.createObjectStore("drafts", { keyPath: "id" });
      db.createObjectStore("arrived", { keyPath: "id" });
    },
  });
  return opened;
}

let openedDevice: Promise<IDBPDatabase<DeviceSchema>> | undefined;
function deviceDatabase(): Promise<IDBPDatabase<DeviceSchema>> {
  openedDevice ??= openDB<DeviceSchema>("civic-device", 1, {
    upgrade(db) {
      db.createObjectStore("device");
    },
  });
  return openedDevice;
}

/**
 * Who is using the site on this device now. A page from the server says so itself and is remembered; a page served
 * from the device's copy (offline: the worker marks it "unknown") and the worker itself use the last one remembered.
 */
export async function currentOwner(): Promise<string> {
  const said =
    typeof document === "undefined"
      ? UNKNOWN
      : (document.querySelector<HTMLMetaElement>('meta[name="device-owner"]')?.content ?? UNKNOWN);
  const db = await deviceDatabase();
  if (said !== UNKNOWN) {
    if ((await db.get("device", "owner")) !== said) await db.put("device", said, "owner");
    return said;
  }
  return (await db.get("device", "owner")) ?? ANONYMOUS;
}

/** The drafts of `owner`, oldest first. */
export async function listDrafts(owner: string): Promise<Draft[]> {
  const all = await (await database()).getAll("drafts");
  return all.filter((d) => ownerOf(d) === owner).sort((a, b) => a.createdAt - b.createdAt);
}

/** How many drafts on this device belong to other owners than `owner` (never shown or sent in this session). */
export async function otherOwnersDraftCount(owner: string): Promise<number> {
  const all = await (await database()).getAll("drafts");
  return all.filter((d) => ownerOf(d) !== owner).length;
}

/** Every draft on this device, whoever saved it (what erasing one's data would delete). */
export async function allDraftCount(): Promise<number> {
  return (await database()).count("drafts");
}

/**
 * Deletes the drafts, and the list of arrived reports, of `owner` (signing out), or of every owner but `owner`
 * (`others`: the drafts page's "delete them"). Returns how many drafts went.
 */
export async function deleteDraftsOf(owner: string, others = false): Promise<number> {
  const db = await database();
  const tx = db.transaction(["drafts", "arrived"], "readwrite");
  const matches = (d: { owner?: string }) => (ownerOf(d) === owner) !== others;
  let deleted = 0;
  for (const d of await tx.objectStore("drafts").getAll()) {
    if (!matches(d)) continue;
    await tx.objectStore("drafts").delete(d.id);
    deleted++;
  }
  for (const a of await tx.objectStore("arrived").getAll())
    if (matches(a)) await tx.objectStore("arrived").delete(a.id);
  await tx.done;
  announceChange();
  return deleted;
}

/** A draft of `owner` by its id. */
export async function getDraft(id: string, owner: string): Promise<Draft | undefined> {
  const draft = await (await database()).get("drafts", id);
  return draft && ownerOf(draft) === owner ? draft : undefined;
}

export async function saveDraft(draft: Draft): Promise<void> {
  await (await database()).put("drafts", draft);
  announceChange();
}

export async function deleteDraft(id: string): Promise<void> {
  await (await database()).delete("drafts", id);
  announceChange();
}

/** The reports of `owner` that arrived from this device, newest first. */
export async function listArrived(owner: string): Promise<ArrivedReport[]> {
  const all = await (await database()).getAll("arrived");
  return all.filter((a) => ownerOf(a) === owner).sort((a, b) => b.arrivedAt - a.arrivedAt);
}

/** The value of a draft's field, or "". */
export function field(draft: Draft, name: string): string {
  return draft.fields.find(([n]) => n === name)?.[1] ?? "";
}

export function draftTitle(draft: Draft): string {
  return field(draft, "title").trim() || "Untitled report";
}

function newKey(): string {
  return crypto.randomUUID();
}

/**
 * A draft from a submitted report form. A new draft keeps the form's own Idempotency-Key, so a form post whose
 * answer was lost is recognised by the server; an edited draft is new content and gets a new key.
 */
export function draftFromForm(form: FormData, owner: string, earlier?: Draft): Draft {
  const fields: [string, string][] = [];
  const photos: DraftPhoto[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") {
      if (!NOT_SAVED.has(name)) fields.push([name, value]);
    } else if (name === "photos" && value.size > 0) {
      photos.push({ name: value.name, type: value.type, blob: value });
    }
  }
  const now = Date.now();
  const formKey = form.get("idempotency_key");
  return {
    id: earlier?.id ?? newKey(),
    owner: earlier ? ownerOf(earlier) : owner,
    key: earlier ? newKey() : typeof formKey === "string" && formKey ? formKey : newKey(),
    createdAt: earlier?.createdAt ?? now,
    updatedAt: now,
    fields,
    photos,
    state: "waiting",
  };
}

const CHANNEL = "civic-drafts";

export function announceChange(): void {
  if (typeof BroadcastChannel === "undefined") return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage("changed");
  channel.close();
}

/** Calls `listener` when drafts change in any page or in the service worker. */
export function onDraftsChange(listener: () => void): void {
  if (typeof BroadcastChannel === "undefined") return;
  new BroadcastChannel(CHANNEL).addEventListener("message", listener);
}

type Outcome = "arrived" | "refused" | "later";

interface Problem {
  detail?: string;
  code?: string;
  errors?: { field: string; message: string }[];
}

const SENT_PAGE = /\/report\/sent\/([0-9A-Z]{4}-[0-9A-Z]{4})$/;

async function arrived(draft: Draft, reference: string): Promise<Outcome> {
  const db = await database();
  const tx = db.transaction(["drafts", "arrived"], "readwrite");
  const owner = ownerOf(draft);
  await tx
    .objectStore("arrived")
    .put({ id: draft.id, owner, reference, title: draftTitle(draft), arrivedAt: Date.now() });
  await tx.objectStore("drafts").delete(draft.id);
  await tx.done;
  const all = await listArrived(owner);
  for (const old of all.slice(ARRIVED_KEPT)) await db.delete("arrived", old.id);
  announceChange();
  return "arrived";
}

/** Sends one draft. Deletes it only when the server answered with a reference. */
export async function sendDraft(draft: Draft): Promise<Outcome> {
  const body = new FormData();
  for (const [name, value] of draft.fields) body.append(name, value);
  for (const photo of draft.photos) body.append("photos", photo.blob, photo.name);
  let response: Response;
  try {
    response = await fetch(APP_REPORTS_PATH, {
      method: "POST",
      body,
      headers: { "idempotency-key": `"${draft.key}"`, "draft-owner": ownerOf(draft) },
      credentials: "same-origin",
    });
  } catch {
    return "later"; // offline, or the connection dropped: the same key makes the retry safe
  }
  const sentPage = response.redirected ? SENT_PAGE.exec(new URL(response.url).pathname) : null;
  if (sentPage?.[1]) return arrived(draft, sentPage[1]); // first posted by the web form
  if (response.status === 201) {
    const created = (await response.json()) as { reference?: unknown };
    if (typeof created.reference === "string") return arrived(draft, created.reference);
    return "later";
  }
  // 409: the key is in use, or the draft belongs to another session than the one signed in now (it waits for its own).
  if (response.status === 409 || response.status === 429 || response.status >= 500) return "later";
  const problem = ((await response.json().catch(() => ({}))) ?? {}) as Problem;
  if (response.status === 422 && problem.code === "idempotency_key_reused") {
    // The key was used for other content (a form page reused offline): this content is a new report.
    await saveDraft({ ...draft, key: newKey() });
    return "later";
  }
  const problems = problem.errors?.length
    ? problem.errors.map((e) => `${e.field}: ${e.message}`)
    : [problem.detail ?? `The report was not accepted (error ${response.status}).`];
  await saveDraft({ ...draft, state: "refused", problems });
  return "refused";
}

export interface SendSummary {
  arrived: number;
  waiting: number;
}

async function sendAll(owner: string): Promise<SendSummary> {
  let sent = 0;
  let waiting = 0;
  for (const draft of await listDrafts(owner)) {
    if (draft.state !== "waiting") continue;
    const outcome = await sendDraft(draft);
    if (outcome === "arrived") sent++;
    else if (outcome === "later") waiting++;
  }
  return { arrived: sent, waiting };
}

/**
 * Sends every waiting draft of whoever is using the site now (`currentOwner`), one at a time; the drafts of other
 * sessions stay on the device, unsent. Pages and the service worker may all try at once; a Web Lock keeps it to one
 * sender per browser, and the Idempotency-Key makes a duplicate send harmless anyway.
 */
export async function sendWaitingDrafts(): Promise<SendSummary> {
  const owner = await currentOwner();
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return sendAll(owner);
  const result = await locks.request("civic-drafts-send", { ifAvailable: true }, (lock) =>
    lock ? sendAll(owner) : null,
  );
  return result ?? { arrived: 0, waiting: 1 };
}
