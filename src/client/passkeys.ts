import { browserSupportsWebAuthn, startAuthentication, startRegistration } from "@simplewebauthn/browser";

/**
 * Passkeys on /sign-in and /account: shows the passkey buttons only where WebAuthn works, and runs the ceremonies
 * against the JSON endpoints. Every other way to sign in works without this script.
 */
async function post(
  url: string,
  body: Record<string, unknown>,
): Promise<{ ok: boolean; data: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    credentials: "same-origin",
    body: JSON.stringify(body),
  });
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return { ok: res.ok, data };
}

function say(status: HTMLElement | null, text: string): void {
  if (status) status.textContent = text;
}

function setUp(
  containerId: string,
  run: (csrf: string, container: HTMLElement, status: HTMLElement | null) => Promise<void>,
) {
  const container = document.getElementById(containerId);
  const button = container?.querySelector("button");
  if (!container || !button || !browserSupportsWebAuthn()) return;
  container.hidden = false;
  const status = container.querySelector<HTMLElement>("[role=status]");
  button.addEventListener("click", () => {
    button.disabled = true;
    run(container.dataset.csrf ?? "", container, status)
      .catch(() => say(status, "That did not work. Please try again."))
      .finally(() => {
        button.disabled = false;
      });
  });
}

setUp("passkey-sign-in", async (csrf, container, status) => {
  const begin = await post("/sign-in/passkey/options", { _csrf: csrf });
  if (!begin.ok) return say(status, String(begin.data.error ?? "Please reload the page and try again."));
  say(status, "Follow your browser's prompt to use your passkey.");
  const response = await startAuthentication({ optionsJSON: begin.data.options as never });
  const done = await post("/sign-in/passkey", {
    _csrf: String(begin.data.csrf ?? csrf),
    handle: begin.data.handle,
    response,
    next: container.dataset.next ?? "",
  });
  if (!done.ok) return say(status, String(done.data.error ?? "That did not work. Please try again."));
  say(status, "Signed in.");
  window.location.assign(String(done.data.redirect ?? "/account"));
});

setUp("passkey-register", async (csrf, _container, status) => {
  const begin = await post("/account/passkeys/options", { _csrf: csrf });
  if (!begin.ok) return say(status, String(begin.data.error ?? "Please reload the page and try again."));
  say(status, "Follow your browser's prompt to create a passkey.");
  const response = await startRegistration({ optionsJSON: begin.data.options as never });
  const name = navigator.platform ? `Passkey on ${navigator.platform}` : "";
  const done = await post("/account/passkeys", {
    _csrf: String(begin.data.csrf ?? csrf),
    handle: begin.data.handle,
    response,
    name,
  });
  if (!done.ok) return say(status, String(done.data.error ?? "That did not work. Please try again."));
  say(status, "Passkey added.");
  window.location.assign("/account?done=passkey-added");
});
