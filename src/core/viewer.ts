/** Who is signed in, as every page needs to know it. Set by the accounts feature; null for anonymous requests. */
export interface Viewer {
  accountId: string;
  /** What the header shows: the account's name, or its email address when no name is set. */
  label: string;
  role: "resident" | "moderator" | "admin";
  sessionId: number;
  /** When this session was started by a sign-in (ISO 8601): sensitive changes ask for a recent one. */
  signedInAt: string;
  /** A form token bound to this session (it is also a valid ordinary form token). */
  formToken(): string;
  /** Whether a posted form token was issued for this session. */
  checkFormToken(token: unknown): boolean;
}
