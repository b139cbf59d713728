import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { Viewer } from "../core/context.js";
import { notFound, type FieldProblem } from "../core/http/errors.js";
import { formId } from "../core/http/ids.js";
import { AccountPage } from "./account-pages.js";
import {
  ADDRESS_TAKEN,
  cleanName,
  confirmAddAddress,
  confirmEmailChange,
  describeAddAddress,
  listPasskeys,
  listSessions,
  NAME_MAX,
  removePasskey,
  removePassword,
  requestAddAddress,
  requestEmailChange,
  setPassword,
  sourceContext,
  updateName,
} from "./account-service.js";
import { listConsents, withdrawConsent } from "./personal-data.js";
import { field, limitedMessage, renderPage, requireViewer } from "./page.js";
import { getAccount } from "./repository.js";
import { clearSessionCookie, endAllSessions, endSession } from "./sessions.js";
import { linkPage } from "./link-page.js";
import { signedInRecently, signInAgainPath, UNDO_PURPOSE, undoEmailChange } from "./security.js";
import { normaliseEmail } from "../core/email-address.js";
import { requestClient } from "../core/http/client-address.js";

const UNDO_EXPIRED =
  "This link has expired or has already been used. If someone else controls your account, write to the contact address at the bottom of the page.";

/** Fixed messages shown after a change (Post/Redirect/Get), chosen by a short key in the query. */
const NOTICES: Record<string, string> = {
  name: "Your name is saved.",
  email: "We have sent a confirmation link to the new address. Your address changes when you open it.",
  "email-changed": "Your email address is changed.",
  address:
    "If that address can be added, we have sent it a link. The address is added to your account when you open that link and press its button.",
  password: "Your password is saved.",
  "password-removed": "Your password is removed. Sign in with a link by email or a passkey.",
  session: "That device is signed out.",
  consent: "Your consent is withdrawn.",
  passkey: "The passkey is removed.",
  "passkey-added": "Your passkey is added. You can now sign in with it.",
};

/** /account and the forms on it. */
export async function accountRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const civic = app.civic;
  const db = () => civic.database.db;

  async function showAccount(
    request: FastifyRequest,
    reply: FastifyReply,
    viewer: Viewer,
    options: {
      problems?: FieldProblem[];
      values?: Partial<{ name: string; newEmail: string; addEmail: string }>;
      notice?: string;
      status?: number;
    } = {},
  ) {
    const account = await getAccount(db(), viewer.accountId);
    if (!account) throw notFound();
    const [sessions, passkeys, consents] = await Promise.all([
      listSessions(civic, account.id),
      listPasskeys(civic, account.id),
      listConsents(sourceContext(civic), { accountId: account.id, email: account.email }),
    ]);
    const problems = options.problems ?? [];
    return renderPage(
      request,
      reply,
      "Your account",
      (ctx) => (
        <AccountPage
          csrfToken={ctx.csrfToken}
          account={account}
          currentSessionId={viewer.sessionId}
          sessions={sessions}
          passkeys={passkeys}
          consents={consents}
          problems={problems}
          values={{ name: account.name ?? "", newEmail: "", addEmail: "", ...options.values }}
          notice={options.notice}
        />
      ),
      {
        status: options.status ?? (problems.length ? 400 : 200),
        hasErrors: problems.length > 0,
        scripts: ["enhance.js", "passkeys.js"],
      },
    );
  }

  const done = (reply: FastifyReply, key: keyof typeof NOTICES & string) => reply.redirect(`/account?done=${key}`, 303);

  /**
   * The signed-in person, for a sensitive change (email address, password, passkeys): only when they signed in
   * recently (security.ts); otherwise a redirect to sign in again, which comes back to the account page.
   */
  function recentViewer(request: FastifyRequest, reply: FastifyReply): Viewer | null {
    const viewer = requireViewer(request, reply);
    if (!viewer) return null;
    if (signedInRecently(civic, viewer)) return viewer;
    void reply.redirect(signInAgainPath(), 303);
    return null;
  }

  app.get(
    "/account",
    { schema: { hide: true, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 40 })) }) } },
    async (request, reply) => {
      const viewer = requireViewer(request, reply);
      if (!viewer) return reply;
      const key = request.query.done ?? "";
      return showAccount(request, reply, viewer, { notice: Object.hasOwn(NOTICES, key) ? NOTICES[key] : undefined });
    },
  );

  app.post("/account/name", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    const typed = field(request, "name", 2000);
    const name = cleanName(typed);
    if (name.length > NAME_MAX) {
      return showAccount(request, reply, viewer, {
        problems: [{ field: "name", message: `Use at most ${NAME_MAX} characters for your name` }],
        values: { name: typed },
      });
    }
    await updateName(civic, viewer.accountId, name);
    return done(reply, "name");
  });

  app.post("/account/email", { schema: { hide: true } }, async (request, reply) => {
    const viewer = recentViewer(request, reply);
    if (!viewer) return reply;
    const typed = field(request, "email", 400);
    const email = normaliseEmail(typed);
    const fail = (message: string, status = 400) =>
      showAccount(request, reply, viewer, {
        problems: [{ field: "new-email", message }],
        values: { newEmail: typed },
        status,
      });
    if (!email) return fail("Enter an email address like name@example.com");
    const account = await getAccount(db(), viewer.accountId);
    if (account?.email === email) return fail("That is already your email address");
    try {
      await requestEmailChange(civic, viewer.accountId, email, requestClient(request));
    } catch (error) {
      return fail(limitedMessage(reply, error), 429);
    }
    return done(reply, "email");
  });

  app.post("/account/addresses", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    const typed = field(request, "email", 400);
    const email = normaliseEmail(typed);
    const fail = (message: string, status = 400) =>
      showAccount(request, reply, viewer, {
        problems: [{ field: "add-email", message }],
        values: { addEmail: typed },
        status,
      });
    if (!email) return fail("Enter an email address like name@example.com");
    const account = await getAccount(db(), viewer.accountId);
    if (!account) throw notFound();
    if (account.email === email) return fail("That is already your email address");
    try {
      await requestAddAddress(civic, account.id, account.email, email, requestClient(request));
    } catch (error) {
      return fail(limitedMessage(reply, error), 429);
    }
    return done(reply, "address");
  });

  linkPage(app, {
    path: "/account/addresses/confirm",
    purpose: "add-address",
    title: "Add an address to an account",
    intro: (link) => describeAddAddress(civic, link),
    button: "Add this address",
    expired: "This link has expired or has already been used. Ask for a new one on your account page.",
  });

  app.post("/account/addresses/confirm", { schema: { hide: true } }, async (request, reply) => {
    const outcome = await confirmAddAddress(civic, field(request, "token", 100));
    const [title, message, status] =
      outcome === "added"
        ? ["Address added", "The address is added to the account.", 200]
        : outcome === "taken"
          ? ["Address not added", ADDRESS_TAKEN, 409]
          : [
              "Address not added",
              "This link has expired or has already been used. Ask for a new one on your account page.",
              410,
            ];
    return renderPage(
      request,
      reply,
      title,
      () => (
        <>
          <h1>{title}</h1>
          <p>{message}</p>
          <p>
            <a href="/account">Go to your account</a>
          </p>
        </>
      ),
      { status },
    );
  });

  linkPage(app, {
    path: "/account/email/confirm",
    purpose: "email-change",
    title: "Confirm your new email address",
    intro: "Press the button to use this address for your account from now on.",
    button: "Use this address",
    expired: "This link has expired or has already been used. Ask for a new one on your account page.",
  });

  app.post("/account/email/confirm", { schema: { hide: true } }, async (request, reply) => {
    const outcome = await confirmEmailChange(civic, field(request, "token", 100), request.viewer);
    if (outcome === "changed") return reply.redirect(request.viewer ? "/account?done=email-changed" : "/sign-in", 303);
    const message =
      outcome === "taken"
        ? "Another account already uses this address, so it cannot be moved to yours."
        : "This link has expired or has already been used. Ask for a new one on your account page.";
    return renderPage(
      request,
      reply,
      "Email address not changed",
      () => (
        <>
          <h1>Email address not changed</h1>
          <p>{message}</p>
          <p>
            <a href="/account">Go to your account</a>
          </p>
        </>
      ),
      { status: outcome === "taken" ? 409 : 410 },
    );
  });

  app.post("/account/password", { schema: { hide: true } }, async (request, reply) => {
    const viewer = recentViewer(request, reply);
    if (!viewer) return reply;
    const account = await getAccount(db(), viewer.accountId);
    if (!account) throw notFound();
    const problem = await setPassword(civic, viewer, account.email, field(request, "password", 5000));
    if (problem)
      return showAccount(request, reply, viewer, { problems: [{ field: "new-password", message: problem }] });
    return done(reply, "password");
  });

  app.post("/account/password/remove", { schema: { hide: true } }, async (request, reply) => {
    const viewer = recentViewer(request, reply);
    if (!viewer) return reply;
    await removePassword(civic, viewer);
    return done(reply, "password-removed");
  });

  app.post("/account/sessions/end", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    const id = formId(field(request, "id", 20), "id");
    const own = await db()
      .selectFrom("sessions")
      .select("id")
      .where("id", "=", id)
      .where("account_id", "=", viewer.accountId)
      .executeTakeFirst();
    if (own) await endSession(db(), own.id);
    if (own?.id === viewer.sessionId) {
      clearSessionCookie(civic, reply);
      return reply.redirect("/", 303);
    }
    return done(reply, "session");
  });

  app.post("/account/sessions/end-all", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    await endAllSessions(db(), viewer.accountId);
    clearSessionCookie(civic, reply);
    return reply.redirect("/", 303);
  });

  app.post("/account/consents/withdraw", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    const account = await getAccount(db(), viewer.accountId);
    if (!account) throw notFound();
    await withdrawConsent(
      sourceContext(civic),
      { accountId: account.id, email: account.email },
      field(request, "consent", 300),
    );
    return done(reply, "consent");
  });

  app.post("/account/passkeys/delete", { schema: { hide: true } }, async (request, reply) => {
    const viewer = recentViewer(request, reply);
    if (!viewer) return reply;
    await removePasskey(civic, viewer, field(request, "id", 1000));
    return done(reply, "passkey");
  });

  linkPage(app, {
    path: "/account/email/undo",
    purpose: UNDO_PURPOSE,
    title: "Put your email address back",
    intro: "Press the button to give the account this email address again. Every device signed in to it is signed out.",
    button: "Put my address back",
    expired: UNDO_EXPIRED,
  });

  app.post("/account/email/undo", { schema: { hide: true } }, async (request, reply) => {
    const outcome = await undoEmailChange(civic, field(request, "token", 100));
    if (outcome.kind === "undone" && request.viewer?.accountId === outcome.accountId) {
      clearSessionCookie(civic, reply);
      request.viewer = null;
    }
    const [title, message, status] =
      outcome.kind === "undone"
        ? [
            "Your email address is back",
            "The account uses this email address again, and every device signed in to it is signed out. Sign in with a link by email, then check the password and passkeys on your account page.",
            200,
          ]
        : outcome.kind === "taken"
          ? ["Email address not changed back", "Another account now uses this address, so it cannot be put back.", 409]
          : ["Email address not changed back", UNDO_EXPIRED, 410];
    return renderPage(
      request,
      reply,
      title,
      () => (
        <>
          <h1>{title}</h1>
          <p>{message}</p>
          <p>
            <a href="/sign-in">Sign in</a>
          </p>
        </>
      ),
      { status },
    );
  });
}
