import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDatabase, describeEachDb, type TestDatabase, testConfig } from "../../../test/helpers/app.js";
import { UsageError } from "../cli.js";
import { mailCommands } from "./cli.js";
import { startTestSmtp } from "../../../test/helpers/smtp.js";
import { enqueueMail } from "./outbox.js";

describeEachDb("civic mail", (dialect) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase(dialect);
  });
  afterEach(async () => db.cleanup());

  it("shows the queue and sends what is due (to .eml files without SMTP_URL)", async () => {
    const config = testConfig(db.dataDir);
    for (const n of [1, 2]) {
      await enqueueMail(
        db.database.db,
        { kind: "test", to: `p${n}@example.org`, subject: `S${n}`, text: "x", html: null },
        new Date(),
      );
    }
    const lines: string[] = [];
    const ctx = {
      config,
      database: db.database,
      args: [],
      out: (l: string) => lines.push(l),
      err: (l: string) => lines.push(l),
    };
    expect(await mailCommands["mail status"]?.run(ctx)).toBe(0);
    expect(lines.pop()).toBe(
      "Sent: 0. Waiting: 2. Failed at least once: 0. Failed for good: 0. Suppressed addresses: 0.",
    );
    expect(await mailCommands["mail send"]?.run(ctx)).toBe(0);
    expect(lines.pop()).toBe("Sent 2 emails.");
    expect(readdirSync(join(db.dataDir, "mail")).filter((f) => f.endsWith(".eml"))).toHaveLength(2);
    await mailCommands["mail status"]?.run(ctx);
    expect(lines.pop()).toBe(
      "Sent: 2. Waiting: 0. Failed at least once: 0. Failed for good: 0. Suppressed addresses: 0.",
    );
  });

  it("mail last shows the newest message: recipient, subject, text, its links and its .eml file once written", async () => {
    const config = testConfig(db.dataDir);
    const lines: string[] = [];
    const ctx = (args: string[] = []) => ({
      config,
      database: db.database,
      args,
      out: (l: string) => lines.push(l),
      err: (l: string) => lines.push(l),
    });
    expect(await mailCommands["mail last"]?.run(ctx())).toBe(1);
    expect(lines.pop()).toBe("No mail has been written yet.");

    const at = new Date("2026-05-01T10:00:00Z");
    await enqueueMail(
      db.database.db,
      { kind: "test", to: "old@example.org", subject: "Older", text: "Not this one.", html: null },
      at,
    );
    const text = [
      "Sign in with this link (valid 30 minutes):",
      "http://civic.test/sign-in/link#abc.",
      "Or see (https://civic.test/reports/R-1). Again: http://civic.test/sign-in/link#abc",
    ].join("\n");
    await enqueueMail(
      db.database.db,
      { kind: "sign-in", to: "new@example.org", subject: "Your sign-in link", text, html: null },
      new Date(at.getTime() + 1000),
    );
    lines.length = 0;
    expect(await mailCommands["mail last"]?.run(ctx())).toBe(0);
    const shown = lines.join("\n");
    expect(shown).toContain("To: new@example.org");
    expect(shown).toContain("Subject: Your sign-in link");
    expect(shown).toContain("Status: waiting to be sent");
    expect(shown).toContain(text);
    expect(shown).not.toContain("Older");
    expect(lines.slice(lines.indexOf("Links:") + 1)).toEqual([
      "  http://civic.test/sign-in/link#abc",
      "  https://civic.test/reports/R-1",
    ]);

    await mailCommands["mail send"]?.run(ctx());
    lines.length = 0;
    expect(await mailCommands["mail last"]?.run(ctx())).toBe(0);
    const file = readdirSync(join(db.dataDir, "mail")).find((f) =>
      readFileSync(join(db.dataDir, "mail", f), "utf8").includes("new@example.org"),
    );
    expect(lines).toContain(`File: ${join(db.dataDir, "mail", file ?? "?")}`);
    expect(lines.find((l) => l.startsWith("Status:"))).toMatch(/^Status: sent at /);
    await expect(mailCommands["mail last"]?.run(ctx(["extra"]))).rejects.toThrow(UsageError);
  });

  it("counts failed messages and suppressed addresses, and erases a suppression", async () => {
    const config = testConfig(db.dataDir);
    const smtp = await startTestSmtp(0, [], { refuse: { "gone@example.org": 550 } });
    try {
      await enqueueMail(
        db.database.db,
        { kind: "test", to: "gone@example.org", subject: "S", text: "x", html: null },
        new Date(),
      );
      const lines: string[] = [];
      const ctx = (args: string[]) => ({
        config: { ...config, smtpUrl: smtp.url },
        database: db.database,
        args,
        out: (l: string) => lines.push(l),
        err: (l: string) => lines.push(l),
      });
      expect(await mailCommands["mail send"]?.run(ctx([]))).toBe(0);
      expect(lines.pop()).toBe("Sent 0 emails.");
      await mailCommands["mail status"]?.run(ctx([]));
      expect(lines).toContain(
        "Sent: 0. Waiting: 0. Failed at least once: 0. Failed for good: 1. Suppressed addresses: 1.",
      );
      expect(await mailCommands["mail unsuppress"]?.run(ctx(["Gone@example.org"]))).toBe(0);
      expect(lines.pop()).toBe("Removed the address from the suppression list.");
      expect(await mailCommands["mail unsuppress"]?.run(ctx(["gone@example.org"]))).toBe(1);
    } finally {
      await smtp.close();
    }
  });
});
