// Site-wide progressive enhancement. The site works fully without it.
import {
  ANONYMOUS,
  type Draft,
  allDraftCount,
  currentOwner,
  deleteDraftsOf,
  draftFromForm,
  getDraft,
  listArrived,
  listDrafts,
  onDraftsChange,
  saveDraft,
  sendWaitingDrafts,
} from "./_drafts.js";

// Move focus to an error summary so screen-reader and keyboard users hear about problems at once.
const summary = document.querySelector<HTMLElement>(".error-summary");
if (summary) {
  summary.setAttribute("tabindex", "-1");
  summary.focus();
}

// The installable app: the service worker keeps the report flow on this device, so reports can be made offline.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => undefined);
  // Opened as the installed app (not in a browser tab), online, and not asked to save data: the worker keeps the
  // village's map on the device (a few megabytes), so a report made offline can be put on a real map.
  const installed = ["standalone", "fullscreen", "minimal-ui"].some(
    (mode) => matchMedia(`(display-mode: ${mode})`).matches,
  );
  const saveData = (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData === true;
  if (installed && navigator.onLine && !saveData) {
    void navigator.serviceWorker.ready.then((registration) => registration.active?.postMessage({ type: "keep-tiles" }));
  }
}

// Signing out or erasing one's data (forms marked data-clears-device): the worker drops every page it keeps, before
// the next person uses this browser (the answer also says Clear-Site-Data for the browser's own cache). Signing out
// deletes the drafts saved in this account's session; erasing leaves that to the answer's Clear-Site-Data "storage",
// which deletes every draft on the device once the erasure is done. Either way, unsent drafts are asked about first.
const ERASING = /\/(?:erase|delete)$/;
for (const form of document.querySelectorAll<HTMLFormElement>("form[data-clears-device]")) {
  let decided = false;
  form.addEventListener("submit", (event) => {
    if (decided || typeof indexedDB === "undefined") {
      if ("serviceWorker" in navigator) navigator.serviceWorker.controller?.postMessage({ type: "purge-pages" });
      return;
    }
    event.preventDefault();
    const submitter = event.submitter as HTMLButtonElement | null;
    void (async () => {
      const erasing = ERASING.test(new URL(form.action).pathname);
      // An erasure not yet confirmed by its box is refused by the server and deletes nothing: no need to ask.
      const unconfirmed = form.querySelector<HTMLInputElement>('input[name="confirm"]')?.checked === false;
      try {
        const owner = await currentOwner();
        const lost = erasing ? await allDraftCount() : owner === ANONYMOUS ? 0 : (await listDrafts(owner)).length;
        if (lost > 0 && !(erasing && unconfirmed)) {
          const saved =
            lost === 1
              ? "1 report saved on this device has not been sent"
              : `${lost} reports saved on this device have not been sent`;
          const action = erasing ? "Erasing your data" : "Signing out";
          if (!confirm(`${saved}. ${action} deletes ${lost === 1 ? "it" : "them"} from this device. Go on?`)) return;
        }
        if (!erasing && owner !== ANONYMOUS) await deleteDraftsOf(owner);
      } catch {
        // No storage to read: nothing of this person's is kept in it either.
      }
      decided = true;
      form.requestSubmit(submitter);
    })();
  });
}

const draftParam = new URLSearchParams(location.search).get("draft");
const categoryStep = document.querySelector<HTMLFormElement>('form[action="/report"][method="get"]');
if (draftParam && categoryStep) {
  // Choosing a category for a saved draft: the form that follows opens the draft.
  const carry = document.createElement("input");
  carry.type = "hidden";
  carry.name = "draft";
  carry.value = draftParam;
  categoryStep.append(carry);
}

const reportForm = document.querySelector<HTMLFormElement>("form.report-form");
if (reportForm) {
  // A page served from the device's copy would repeat its Idempotency-Key: each page view gets its own.
  const keyField = reportForm.querySelector<HTMLInputElement>('input[name="idempotency_key"]');
  if (keyField && typeof crypto.randomUUID === "function") keyField.value = crypto.randomUUID();
  if (draftParam) void editDraft(reportForm, draftParam);
}

/** Opens a saved draft in the report form; "Send report" saves the changes and sends them like any draft. */
async function editDraft(form: HTMLFormElement, id: string): Promise<void> {
  const draft = await getDraft(id, await currentOwner());
  if (!draft) return;
  fillForm(form, draft);
  form.addEventListener("submit", (event) => {
    const submitter = event.submitter as HTMLButtonElement | null;
    if (submitter?.value === "check") return;
    event.preventDefault();
    const updated = draftFromForm(new FormData(form, submitter), ANONYMOUS, draft);
    void saveDraft(updated).then(() => location.assign(`/report/drafts?saved=${encodeURIComponent(updated.id)}`));
  });
}

function fillForm(form: HTMLFormElement, draft: Draft): void {
  const values = new Map<string, string[]>();
  for (const [name, value] of draft.fields) values.set(name, [...(values.get(name) ?? []), value]);
  for (const [name, list] of values) {
    if (name === "idempotency_key" || name === "action" || name === "category") continue;
    for (const el of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
      `[name="${CSS.escape(name)}"]`,
    )) {
      if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
        el.checked = list.includes(el.value);
      } else if (!(el instanceof HTMLInputElement && el.type === "file")) {
        el.value = list[0] ?? "";
      }
    }
  }
  const photos = form.querySelector<HTMLInputElement>('input[type="file"][name="photos"]');
  if (photos && draft.photos.length > 0 && typeof DataTransfer !== "undefined") {
    const transfer = new DataTransfer();
    for (const p of draft.photos) transfer.items.add(new File([p.blob], p.name, { type: p.type }));
    photos.files = transfer.files;
  }
}

// Drafts saved offline are sent by themselves: now, when the connection returns, when the page is shown again, by
// Background Sync where the browser has it, and with growing pauses while some are still waiting.
let retryDelay = 2_000;
let retryTimer: ReturnType<typeof setTimeout> | undefined;

async function sendDrafts(): Promise<void> {
  if (!navigator.onLine) return;
  clearTimeout(retryTimer);
  const result = await sendWaitingDrafts().catch(() => ({ arrived: 0, waiting: 1 }));
  await refreshDrafts();
  if (result.waiting > 0) {
    retryTimer = setTimeout(() => void sendDrafts(), retryDelay);
    retryDelay = Math.min(retryDelay * 2, 60_000);
  } else {
    retryDelay = 2_000;
  }
}

/** Drafts this page has shown as saved on the device, and those of them it has announced as arrived. */
const shownDrafts = new Set<string>();
const announcedDrafts = new Set<string>();

/**
 * Brings the page up to date with the device's drafts: announces those it showed that have arrived since, whoever
 * sent them (this page, another tab, or the service worker's Background Sync, which may win the race to send), and
 * shows the note for those still saved.
 */
async function refreshDrafts(): Promise<void> {
  const owner = await currentOwner();
  if (shownDrafts.size > 0) await announceArrivals(owner);
  showSavedDrafts(await listDrafts(owner));
}

/** Outside the drafts page (which lists them itself), a saved report that arrived is announced with its reference. */
async function announceArrivals(owner: string): Promise<void> {
  const main = document.querySelector("main");
  if (!main || document.getElementById("drafts")) return;
  const reports = (await listArrived(owner)).filter((r) => shownDrafts.has(r.id) && !announcedDrafts.has(r.id));
  if (reports.length === 0) return;
  const panel = document.createElement("div");
  panel.className = "success-panel";
  panel.setAttribute("role", "status");
  for (const report of reports) {
    announcedDrafts.add(report.id);
    const line = document.createElement("p");
    const reference = document.createElement("a");
    reference.href = `/reports/${report.reference}`;
    reference.textContent = report.reference;
    line.append(`Your saved report “${report.title}” has arrived. Its reference number is `, reference, ".");
    panel.append(line);
  }
  main.prepend(panel);
}

/** Outside the drafts page, a short note that reports are saved on this device, so a refused one is found. */
function showSavedDrafts(drafts: Draft[]): void {
  document.getElementById("saved-drafts-note")?.remove();
  const main = document.querySelector("main");
  if (!main || drafts.length === 0 || document.getElementById("drafts")) return;
  for (const d of drafts) shownDrafts.add(d.id);
  const refused = drafts.filter((d) => d.state === "refused").length;
  const note = document.createElement("p");
  note.className = "notice";
  note.id = "saved-drafts-note";
  const link = document.createElement("a");
  link.href = "/report/drafts";
  link.textContent =
    drafts.length === 1 ? "1 report saved on this device" : `${drafts.length} reports saved on this device`;
  note.append(
    link,
    refused > 0
      ? `: ${refused === 1 ? "1 needs" : `${refused} need`} correcting before it can be sent.`
      : ": waiting to be sent automatically.",
  );
  main.prepend(note);
}

async function startDrafts(): Promise<void> {
  const drafts = await currentOwner()
    .then(listDrafts)
    .catch(() => []);
  if (drafts.length === 0) return;
  showSavedDrafts(drafts);
  // Ask the browser not to clear this site's storage under pressure: it holds unsent reports.
  await navigator.storage?.persist?.().catch(() => false);
  if ("serviceWorker" in navigator) {
    const registration = (await navigator.serviceWorker.ready) as ServiceWorkerRegistration & {
      sync?: { register(tag: string): Promise<void> };
    };
    await registration.sync?.register("send-drafts").catch(() => undefined);
  }
  await sendDrafts();
}

if (typeof indexedDB !== "undefined") {
  void startDrafts();
  window.addEventListener("online", () => void sendDrafts());
  onDraftsChange(() => void refreshDrafts());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") void sendDrafts();
  });
}
