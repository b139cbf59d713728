// The list of reports saved on this device (/report/drafts): their age and state, open, edit or delete each one,
// and the references of those that have arrived. Updated when any page or the service worker changes the drafts.
// Only the drafts of whoever is using the site now are listed; those saved in other sessions are only counted.
import {
  type ArrivedReport,
  type Draft,
  currentOwner,
  deleteDraft,
  deleteDraftsOf,
  draftTitle,
  field,
  listArrived,
  listDrafts,
  onDraftsChange,
  otherOwnersDraftCount,
} from "./_drafts.js";

type Child = Node | string | null | undefined | false;

function h(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  for (const child of children) if (child) el.append(child);
  return el;
}

const relative = new Intl.RelativeTimeFormat("en-GB", { numeric: "auto" });
function age(at: number): HTMLElement {
  const seconds = Math.round((at - Date.now()) / 1000);
  const [value, unit]: [number, Intl.RelativeTimeFormatUnit] =
    Math.abs(seconds) < 60
      ? [seconds, "second"]
      : Math.abs(seconds) < 3600
        ? [Math.round(seconds / 60), "minute"]
        : Math.abs(seconds) < 86_400
          ? [Math.round(seconds / 3600), "hour"]
          : [Math.round(seconds / 86_400), "day"];
  const iso = new Date(at).toISOString();
  return h("time", { datetime: iso, title: new Date(at).toLocaleString("en-GB") }, relative.format(value, unit));
}

function draftItem(draft: Draft): HTMLElement {
  const title = draftTitle(draft);
  const hidden = () => h("span", { class: "visually-hidden" }, ` “${title}”`);
  const remove = h("button", { type: "button", class: "secondary" }, "Delete", hidden());
  remove.addEventListener("click", () => {
    if (confirm(`Delete “${title}”? It has not been sent and cannot be recovered.`)) void deleteDraft(draft.id);
  });
  // A category that was refused (retired meanwhile) is chosen again first.
  const category = draft.problems?.some((p) => p.startsWith("category:")) ? "" : field(draft, "category");
  const edit = `/report?${category ? `category=${encodeURIComponent(category)}&` : ""}draft=${encodeURIComponent(draft.id)}`;
  const photos = draft.photos.length;
  return h(
    "li",
    { class: "draft", "data-draft": draft.id },
    h("p", {}, h("strong", {}, title)),
    h(
      "p",
      {},
      "Saved ",
      age(draft.createdAt),
      photos > 0 ? `, with ${photos === 1 ? "1 photo" : `${photos} photos`}` : "",
      ".",
    ),
    draft.state === "refused"
      ? h(
          "div",
          { class: "draft-refused" },
          h("p", { class: "field-error" }, "Not accepted. Please correct it and send it again:"),
          h("ul", {}, ...(draft.problems ?? []).map((p) => h("li", {}, p))),
        )
      : h("p", {}, "Waiting: it will be sent automatically when you are online."),
    h("p", { class: "draft-actions" }, h("a", { href: edit }, "Open and edit", hidden()), " ", remove),
  );
}

function arrivedItem(report: ArrivedReport): HTMLElement {
  return h(
    "li",
    {},
    `“${report.title}”: reference `,
    h("a", { href: `/reports/${report.reference}`, class: "draft-reference" }, report.reference),
    " (",
    age(report.arrivedAt),
    ")",
  );
}

const list = document.getElementById("drafts");
const arrivedList = document.getElementById("drafts-arrived");
const hiddenNote = document.getElementById("drafts-hidden");
const notice = document.getElementById("draft-notice");
const saved = new URLSearchParams(location.search).get("saved");

/** Reports that arrived while this page was open: their reference is announced too. */
let known: Set<string> | undefined;
const arrivedHere: string[] = [];

function noticeFor(drafts: Draft[], arrived: ArrivedReport[]): HTMLElement | null {
  if (known) for (const a of arrived) if (!known.has(a.id)) arrivedHere.unshift(a.id);
  known = new Set(arrived.map((a) => a.id));
  const report = arrived.find((a) => a.id === saved) ?? arrived.find((a) => a.id === arrivedHere[0]);
  if (report) {
    return h(
      "div",
      { class: "success-panel" },
      h("p", {}, `Your report “${report.title}” has arrived. Its reference number is:`),
      h("p", { class: "reference" }, report.reference),
    );
  }
  const draft = drafts.find((d) => d.id === saved);
  if (draft?.state === "refused") {
    return h("div", { class: "notice" }, h("p", {}, "Your report was not accepted: see why below and correct it."));
  }
  if (draft) {
    return h(
      "div",
      { class: "notice" },
      h("p", {}, h("strong", {}, "Saved on this device.")),
      h(
        "p",
        {},
        `Your report “${draftTitle(draft)}” will be sent automatically when you are back online. You can close this page.`,
      ),
    );
  }
  return null;
}

/** Drafts saved in other sessions: how many, never what they say, and a way to delete them from this device. */
function hiddenItem(owner: string, count: number): HTMLElement | null {
  if (count === 0) return null;
  const remove = h("button", { type: "button", class: "secondary" }, count === 1 ? "Delete it" : "Delete them");
  remove.addEventListener("click", () => {
    const what =
      count === 1
        ? "this report from this device? It has not been sent"
        : `these ${count} reports from this device? They have not been sent`;
    if (confirm(`Delete ${what} and cannot be recovered.`)) {
      void deleteDraftsOf(owner, true);
    }
  });
  return h(
    "div",
    { class: "notice" },
    h(
      "p",
      {},
      count === 1
        ? "1 report saved on this device in another session (by someone else, or by you while signed in or out) is not shown and will not be sent here. It is sent when that session is back on this device."
        : `${count} reports saved on this device in other sessions (by someone else, or by you while signed in or out) are not shown and will not be sent here. They are sent when those sessions are back on this device.`,
    ),
    h("p", {}, remove),
  );
}

async function render(): Promise<void> {
  if (!list || !arrivedList || !notice) return;
  const owner = await currentOwner();
  const [drafts, arrived, others] = await Promise.all([
    listDrafts(owner),
    listArrived(owner),
    otherOwnersDraftCount(owner),
  ]);
  const hidden = hiddenItem(owner, others);
  hiddenNote?.replaceChildren(...(hidden ? [hidden] : []));
  list.replaceChildren(
    drafts.length === 0
      ? h("p", { class: "drafts-empty" }, "There are no reports saved on this device.")
      : h("ul", { class: "drafts-list" }, ...drafts.map(draftItem)),
  );
  arrivedList.replaceChildren(
    arrived.length === 0
      ? h("p", {}, "None yet from this device.")
      : h("ul", { class: "drafts-arrived" }, ...arrived.map(arrivedItem)),
  );
  const message = noticeFor(drafts, arrived);
  const text = message?.textContent ?? "";
  // Only a changed message is announced again by the live region.
  if (text !== (notice.textContent ?? "")) notice.replaceChildren(...(message ? [message] : []));
}

void render();
onDraftsChange(() => void render());
setInterval(() => void render(), 60_000);
