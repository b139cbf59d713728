import type { Civic } from "../core/context.js";
import type { OutgoingMail } from "../core/mail/outbox.js";
import { sendChallengeMail as sendWithinCaps } from "../core/mail/policy.js";
import { type ChallengePurpose, issueChallenge, prolongNewest, purgeChallenges } from "./challenges.js";
import { LIMIT_MESSAGE, LIMITS } from "./limits.js";
import { newToken } from "../core/tokens.js";

/**
 * Sends a message that proves control of an address (sign-in, email change, my-data), through the mail policy
 * (core/mail/policy.ts): a client asking too often, for one address or for many, gets a 429 AppError; when the
 * address has had its cap of such messages from everyone together, nothing is sent, the answer is the same, and the
 * newest link already sent to that address for this purpose stays valid a while longer (so a stranger's requests
 * cannot stop the owner from using the link in their mailbox). The challenge and its message are written in one
 * transaction. Returns the handle for the page that sent it.
 */
export async function sendChallengeMail(
  civic: Civic,
  input: {
    purpose: ChallengePurpose;
    email: string;
    accountId: string | null;
    client: string;
    /** The path the link opens, before the token. */
    linkPath: string;
    compose: (link: string, code: string) => OutgoingMail;
  },
): Promise<string> {
  await civic.limits.enforce([[LIMITS.mailPerClient, input.client]], LIMIT_MESSAGE);
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    await purgeChallenges(tx, now);
    const issued: { handle?: string } = {};
    const sent = await sendWithinCaps(
      tx,
      { secret: civic.config.sessionSecret, now },
      { to: input.email, client: input.client, limitMessage: LIMIT_MESSAGE },
      async () => {
        const challenge = await issueChallenge(tx, civic.config.sessionSecret, input, now);
        issued.handle = challenge.handle;
        return input.compose(`${civic.site.baseUrl}${input.linkPath}/${challenge.token}`, challenge.code);
      },
    );
    if (!sent) await prolongNewest(tx, input, now);
    // Over the cap the page looks the same; its handle names no challenge, so only a link already sent works.
    return issued.handle ?? newToken();
  });
}
