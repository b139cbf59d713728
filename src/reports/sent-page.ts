import { keyedHash, safeEqual } from "../core/tokens.js";

function proofOf(secret: string, reference: string): string {
  return keyedHash(secret, "report-sent", reference).slice(0, 22);
}

/**
 * The page that confirms a report to the person who just sent it: `/report/sent/{reference}` with a proof that
 * this server sent them there (keyed by the app's secret; the same for every answer about one report, so a replayed
 * form leads to the same page). Without it, the page exists only for a report the public can see anyway, so it
 * cannot tell anyone else that a hidden or withheld report exists, while the sender of a withheld report sees the
 * usual confirmation (a ban is not announced).
 */
export function sentPagePath(secret: string, reference: string): string {
  return `/report/sent/${encodeURIComponent(reference)}?proof=${proofOf(secret, reference)}`;
}

/** Whether `proof` (from the sent page's query) was made by sentPagePath for this reference. */
export function provesSent(secret: string, reference: string, proof: string | undefined): boolean {
  return proof !== undefined && safeEqual(proof, proofOf(secret, reference));
}
