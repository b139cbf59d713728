import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import type { AppOptions } from "../../src/app.js";
import type { Dialect } from "../../src/core/db/database.js";
import type { OutboxWorker } from "../../src/core/mail/worker.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { type ReceivedMail, startTestSmtp, type TestSmtp } from "../helpers/smtp.js";

/** The whole app with a real SMTP server behind the outbox and a clock the test moves. */
export interface AccountsHarness {
  t: TestApp;
  app: FastifyInstance;
  smtp: TestSmtp;
  /** Moves the clock forward. */
  advance(ms: number): void;
  /** Sends what is in the outbox and returns the newest message to `to`. */
  mailTo(to: string): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function accountsHarness(
  dialect: Dialect,
  env: Record<string, string> = {},
  appOptions: Pick<AppOptions, "logger"> = {},
): Promise<AccountsHarness> {
  const smtp = await startTestSmtp();
  let offset = 0;
  const t = await createTestApp(dialect, {
    seed: true,
    now: () => new Date(Date.now() + offset),
    env: { SMTP_URL: smtp.url, ...env },
    ...appOptions,
  });
  const worker = t.app.civic.workers.find((w) => w.name === "mail-outbox") as OutboxWorker;
  return {
    t,
    app: t.app,
    smtp,
    advance(ms) {
      offset += ms;
    },
    async mailTo(to) {
      const before = smtp.received.filter((m) => m.to.includes(to)).length;
      await worker.runOnce();
      const started = Date.now();
      for (;;) {
        const mine = smtp.received.filter((m) => m.to.includes(to));
        if (mine.length > before) return mine[mine.length - 1]!;
        if (Date.now() - started > 20_000) throw new Error(`no new mail to ${to}`);
        await new Promise((r) => setTimeout(r, 20));
        await worker.runOnce();
      }
    },
    async close() {
      await t.close();
      await smtp.close();
    },
  };
}

/** The link and the code in a sign-in message. */
export function signInMailParts(mail: ReceivedMail): { token: string; path: string; code: string } {
  const text = mail.parsed.text ?? "";
  const link = /https?:\/\/\S+\/(sign-in\/link|my-data\/open|account\/email\/confirm)\/([A-Za-z0-9_-]{43})/.exec(text);
  const code = /code on the sign-in page: (\d{6})/.exec(text)?.[1] ?? "";
  if (!link) throw new Error(`no link in:\n${text}`);
  return { token: link[2]!, path: `/${link[1]}/${link[2]}`, code };
}

export function tokenIn(body: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(body);
  if (!m?.[1]) throw new Error("no form token in the page");
  return m[1];
}

export function hiddenIn(body: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]+)"`).exec(body);
  if (!m?.[1]) throw new Error(`no hidden ${name} in the page`);
  return m[1];
}

/** A browser for app.inject: keeps the session cookie and fetches form tokens the way a person's browser would. */
export class Visitor {
  cookie: string | null = null;
  constructor(
    private readonly app: FastifyInstance,
    readonly userAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
  ) {}

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    const set = res.headers["set-cookie"];
    const line = Array.isArray(set) ? set[0] : set;
    if (line) {
      const [pair] = line.split(";");
      const value = pair!.slice(pair!.indexOf("=") + 1);
      this.cookie = value === "" ? null : pair!;
    }
    return res;
  }

  private headers(): Record<string, string> {
    return { "user-agent": this.userAgent, ...(this.cookie ? { cookie: this.cookie } : {}) };
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(await this.app.inject({ method: "GET", url, headers: this.headers() }));
  }

  async post(url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({
        method: "POST",
        url,
        headers: { ...this.headers(), "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams(fields).toString(),
      }),
    );
  }

  /** Opens `page`, then posts its form to `action` with the page's form token. */
  async submit(page: string, action: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    const token = tokenIn((await this.get(page)).body);
    return this.post(action, { _csrf: token, ...fields });
  }

  /** Signs in with an emailed link: asks for it, opens it, presses the button. */
  async signIn(h: AccountsHarness, email: string): Promise<void> {
    const res = await this.submit("/sign-in", "/sign-in/email", { email });
    if (res.statusCode !== 200) throw new Error(`sign-in request answered ${res.statusCode}`);
    const { path, token } = signInMailParts(await h.mailTo(email.trim().toLowerCase()));
    const page = await this.get(path);
    const done = await this.post("/sign-in/link", { _csrf: tokenIn(page.body), token });
    if (done.statusCode !== 303 || !this.cookie) throw new Error(`sign-in answered ${done.statusCode}: ${done.body}`);
  }
}

/** A report as the web form makes it, straight through the submission function. */
export async function makeReport(
  app: FastifyInstance,
  reporter: { email: string | null; name?: string; phone?: string; shareContact?: boolean },
  accountId: string | null = null,
  photos: Buffer[] = [],
) {
  return submitReport(app.civic, {
    categoryCode: "pothole",
    title: "Pothole by the war memorial",
    description: "Deep hole on the corner.",
    lat: 50.9865,
    lng: -2.044,
    locationText: null,
    placeId: null,
    addressId: null,
    attributes: { road_or_pavement: ["road"] },
    photos: photos.map((data) => ({ data })),
    mediaUrl: null,
    reporter: {
      email: reporter.email,
      name: reporter.name ?? null,
      phone: reporter.phone ?? null,
      shareContact: reporter.shareContact ?? false,
    },
    deviceId: null,
    accountId,
    source: "web",
    apiKeyId: null,
  });
}
