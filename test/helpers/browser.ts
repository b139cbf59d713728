import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { FastifyInstance } from "fastify";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { freePort } from "../setup/postgres.js";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Whether browser tests can run. Locally a missing Chromium skips them with a message; in CI (CI=true) it is an
 * error, because .ci/run installs Chromium.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI) throw new Error(`Chromium is required in CI but ${CHROMIUM_PATH} is missing`);
  console.warn(`Skipping browser tests: ${CHROMIUM_PATH} not found (apt-get install chromium).`);
  return false;
}

export interface TestBrowser {
  browser: Browser;
  newContext(options?: {
    javaScriptEnabled?: boolean;
    viewport?: { width: number; height: number };
  }): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Launches Debian's Chromium headless with no background networking. Playwright gives every launch a fresh,
 * temporary user-data-dir of its own (it refuses a --user-data-dir argument) and removes it on close.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];

export async function launchBrowser(): Promise<TestBrowser> {
  return testBrowser(
    await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS }),
    (browser) => browser.close(),
  );
}

function testBrowser(browser: Browser, close: (browser: Browser) => Promise<void>): TestBrowser {
  return {
    browser,
    async newContext(options = {}) {
      const context = await browser.newContext({ locale: "en-GB", ...options });
      await keepOnLoopback(context);
      return context;
    },
    close: () => close(browser),
  };
}

/** This worker process's Chromium (see sharedBrowser), launched by the first browser test file that needs it. */
let shared: Promise<Browser> | undefined;

/**
 * The Chromium of this test worker, shared by the browser test files it runs one after another (the slow tier does
 * not isolate its files): launching Chromium for every file cost about a second each. Files share nothing else: each
 * test makes its own contexts (every context is a fresh, private profile), and a file's `close()` closes the contexts
 * it left open, not the browser. Chromium ends with the worker process (Playwright closes the browsers it launched
 * when its process exits, and Chromium quits when the pipe to it closes).
 */
export async function sharedBrowser(): Promise<TestBrowser> {
  shared ??= chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS }).then((browser) => {
    browser.once("disconnected", () => {
      shared = undefined;
    });
    return browser;
  });
  const launching = shared;
  const browser = await launching.catch((error: unknown) => {
    if (shared === launching) shared = undefined;
    throw error;
  });
  return testBrowser(browser, async (b) => {
    await Promise.all(b.contexts().map((context) => context.close().catch(() => {})));
  });
}

/**
 * Aborts every request that would leave the machine (map tiles from a public tile server, say): browser tests only
 * ever talk to loopback addresses.
 */
export async function keepOnLoopback(context: BrowserContext): Promise<void> {
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === "data:" || url.protocol === "blob:") return route.continue();
    const host = url.hostname;
    return host === "127.0.0.1" || host === "localhost" || host === "[::1]" ? route.continue() : route.abort();
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe-core in the page with the WCAG 2.0/2.1 A and AA rules; returns the violations. For a page in a context
 * with `javaScriptEnabled: false`, pass `{ javaScript: false }`: Chromium then still runs what the test evaluates,
 * but never fires a timer, which axe waits on; its timers are run as soon as the current task is done instead.
 */
export async function axeViolations(page: Page, options: { javaScript?: boolean } = {}): Promise<AxeViolation[]> {
  if (options.javaScript === false) {
    await page.evaluate(() => {
      const cancelled = new Set<number>();
      let next = 0;
      const later = (fn: TimerHandler, _ms?: number, ...args: unknown[]): number => {
        const id = ++next;
        void Promise.resolve().then(() => {
          if (!cancelled.delete(id) && typeof fn === "function") (fn as (...a: unknown[]) => void)(...args);
        });
        return id;
      };
      const cancel = (id?: number) => void (id !== undefined && cancelled.add(id));
      Object.assign(window, { setTimeout: later, clearTimeout: cancel });
    });
  }
  // Evaluated through the DevTools protocol, so the page's strict CSP stays in force for everything else.
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** A readable summary of violations for a failing assertion. */
export function formatViolations(url: string, violations: AxeViolation[]): string {
  return violations
    .map((v) => `${url}: [${v.id}] ${v.help}\n${v.nodes.map((n) => `    at ${n.target.join(" ")}`).join("\n")}`)
    .join("\n");
}

/**
 * Axe checks of many pages in one test: `check(label)` runs axe on the page as it is now and keeps any violations
 * under that label in `failures`, so the test reports every failing page at once (`options` as for axeViolations).
 */
export function axeChecker(
  page: Page,
  options: { javaScript?: boolean } = {},
): { failures: string[]; check: (label: string) => Promise<void> } {
  const failures: string[] = [];
  return {
    failures,
    check: async (label) => {
      const v = await axeViolations(page, options);
      if (v.length > 0) failures.push(formatViolations(label, v));
    },
  };
}

/** Gives `context` a session: `cookie` is a Cookie header value ("name=value", as SignedIn.cookie), sent to `base`. */
export async function addSessionCookie(context: BrowserContext, base: string, cookie: string): Promise<void> {
  const at = cookie.indexOf("=");
  await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: base }]);
}

/** Collects Content-Security-Policy violations and page errors, which must stay empty. */
export function watchPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(msg.text());
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  return problems;
}

/** What a browser test serves: a test app, or a harness around one, closed with it. */
export interface Served {
  app: FastifyInstance;
  close(): Promise<void>;
}

/** A browser test file's app, listening, and Chromium (see browserSite). */
export interface BrowserSite<H extends Served> {
  /** What the file's `start` returned: its TestApp or harness. */
  readonly harness: H;
  readonly app: FastifyInstance;
  /** Where the app listens, e.g. http://localhost:41234. */
  readonly base: string;
  readonly browser: TestBrowser;
  /** A new context of the browser, signed in with `cookie` (a Cookie header value, as SignedIn.cookie) if given. */
  newContext(options?: {
    cookie?: string;
    javaScriptEnabled?: boolean;
    viewport?: { width: number; height: number };
  }): Promise<BrowserContext>;
  /**
   * A page in a new context (signed in with `cookie` if given) whose problems (CSP violations, script errors) and
   * axe failures (`check`) are collected.
   */
  checkedPage(cookie?: string): Promise<CheckedPage>;
}

export interface CheckedPage {
  context: BrowserContext;
  page: Page;
  /** See watchPageProblems. */
  problems: string[];
  /** See axeChecker. */
  failures: string[];
  check(label: string): Promise<void>;
}

/**
 * The set-up every browser test file shares, registered as its beforeAll and afterAll: a free port on `host`,
 * `start(base)` building the app (with `base` as its BASE_URL where its pages' absolute addresses must be the ones
 * the browser visits; otherwise it may ignore it), the app listening there, and the worker's Chromium
 * (sharedBrowser); afterwards the contexts the file left open and the app are closed. The default host, localhost, is a secure context whose name is a valid WebAuthn relying-party
 * id, unlike 127.0.0.1.
 */
export function browserSite<H extends Served>(
  start: (base: string) => Promise<H>,
  options: { host?: "localhost" | "127.0.0.1" } = {},
): BrowserSite<H> {
  const host = options.host ?? "localhost";
  let harness: H | undefined;
  let browser: TestBrowser | undefined;
  let base: string | undefined;
  beforeAll(async () => {
    const port = await freePort();
    base = `http://${host}:${port}`;
    harness = await start(base);
    await harness.app.listen({ port, host });
    browser = await sharedBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the browser site is used before its beforeAll has run");
    return value;
  };
  const newContext: BrowserSite<H>["newContext"] = async ({ cookie, ...options } = {}) => {
    const context = await ready(browser).newContext(options);
    if (cookie !== undefined) await addSessionCookie(context, ready(base), cookie);
    return context;
  };
  return {
    get harness() {
      return ready(harness);
    },
    get app() {
      return ready(harness).app;
    },
    get base() {
      return ready(base);
    },
    get browser() {
      return ready(browser);
    },
    newContext,
    async checkedPage(cookie) {
      const context = await newContext({ cookie });
      const page = await context.newPage();
      return { context, page, problems: watchPageProblems(page), ...axeChecker(page) };
    },
  };
}
