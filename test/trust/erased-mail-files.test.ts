import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sourceContext } from "../../src/accounts/account-service.js";
import { erasePersonalData } from "../../src/accounts/personal-data.js";
import { findOrCreateAccount } from "../../src/accounts/repository.js";
import type { OutboxWorker } from "../../src/core/mail/worker.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";

/**
 * Issue 33 #8: without SMTP_URL, mail is written as .eml files under DATA_DIR/mail. Erasing a person erases the
 * files of the messages to and about them as well as the outbox rows: no file keeps their address.
 */
describeEachDb("mail written to files, and erasure", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  const mailDir = () => join(t.config.dataDir, "mail");
  const filesMentioning = (text: string) =>
    readdirSync(mailDir())
      .filter((f) => f.endsWith(".eml"))
      .filter((f) => readFileSync(join(mailDir(), f), "utf8").toLowerCase().includes(text));

  it("no file under DATA_DIR/mail contains an erased person's address", async () => {
    expect(t.config.smtpUrl).toBeNull();
    const civic = t.app.civic;
    const email = "erin.erased@example.org";
    const account = await findOrCreateAccount(civic.database.db, email, civic.now());
    for (const title of ["Erased one", "Erased two"]) {
      await submitReport(
        civic,
        reportSubmission({
          title,
          accountId: account.id,
          reporter: { email, name: "Erin", phone: null, shareContact: true },
        }),
      );
    }
    // Someone else's mail, which stays.
    await submitReport(
      civic,
      reportSubmission({
        title: "Kept",
        reporter: { email: "kept@example.org", name: null, phone: null, shareContact: false },
      }),
    );
    const worker = civic.workers.find((w) => w.name === "mail-outbox") as OutboxWorker;
    await worker.runOnce();
    expect(filesMentioning(email).length).toBeGreaterThan(0);
    expect(filesMentioning("kept@example.org")).toHaveLength(1);

    await erasePersonalData(sourceContext(civic), { accountId: account.id, email }, { removePublicContent: true });
    expect(filesMentioning(email)).toEqual([]);
    expect(filesMentioning("kept@example.org")).toHaveLength(1);
  });
});
