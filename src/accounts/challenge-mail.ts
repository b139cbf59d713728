import type { Civic } from "../core/context.js";
import type { EmailChallengesTable } from "../core/db/schema.js";
import type { OutgoingMail } from "../core/mail/outbox.js";
import { enqueueMail } from "../core/mail/outbox.js";
import { issueChallenge, purgeChallenges } from "./challenges.js";
import { LIMIT_MESSAGE, LIMITS } from "./limits.js";
import { limiterFor } from "./sign-in.js";

/**
 * Sends a message that proves control of an address (sign-in, email change, my-data), within the per-address and
 * per-client limits (a 429 AppError beyond them). The challenge and its message are written in one transaction.
 * Returns the handle for the page that sent it.
 */
export async function sendChallengeMail(
  civic: Civic,
  input: {
    purpose: EmailChallengesTable["purpose"];
    email: string;
    accountId: string | null;
    client: string;
    /** The path the link opens, before the token. */
    linkPath: string;
    compose: (link: string, code: string) => OutgoingMail;
  },
): Promise<string> {
  await limiterFor(civic).enforce(
    [
      [LIMITS.mailPerEmail, input.email],
      [LIMITS.mailPerClient, input.client],
    ],
    LIMIT_MESSAGE,
  );
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    await purgeChallenges(tx, now);
    const issued = await issueChallenge(tx, civic.config.sessionSecret, input, now);
    await enqueueMail(tx, input.compose(`${civic.site.baseUrl}${input.linkPath}/${issued.token}`, issued.code), now);
    return issued.handle;
  });
}
