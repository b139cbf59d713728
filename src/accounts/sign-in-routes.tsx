import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { FieldProblem } from "../core/http/errors.js";
import { Type } from "typebox";
import { field, limitedMessage, renderPage, safeNext } from "./page.js";
import { clearSessionCookie, endSession, startSession } from "./sessions.js";
import { CheckEmailPage, SignInPage, type SignInValues, SuspendedPage } from "./sign-in-pages.js";
import {
  EXPIRED_LINK,
  requestSignInMail,
  type SignInOutcome,
  signInWithCode,
  signInWithLink,
  signInWithPassword,
} from "./sign-in.js";
import { linkPage } from "./link-page.js";
import { SIGN_IN_AGAIN } from "./security.js";
import { normaliseEmail } from "../core/email-address.js";
import { requestClient } from "../core/http/client-address.js";

/** /sign-in (email link and code, password), /sign-in/link/{token}, /sign-out. */
export async function signInRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const civic = app.civic;

  function signInForm(
    request: FastifyRequest,
    reply: FastifyReply,
    values: SignInValues,
    problems: FieldProblem[],
    status = 400,
    notice?: string,
  ) {
    return renderPage(
      request,
      reply,
      "Sign in",
      (ctx) => <SignInPage csrfToken={ctx.csrfToken} values={values} problems={problems} notice={notice} />,
      { status, hasErrors: problems.length > 0, scripts: ["enhance.js", "passkeys.js"] },
    );
  }

  /**
   * Where a sign-in goes on to: the posted `next` when it is a local page, else /account (every Location is made
   * header-safe on the way out, core/http/redirect.ts). Worked out
   * before anything is used up (a link, a code), so the answer cannot fail after the session is written.
   */
  const afterSignIn = (request: FastifyRequest) => safeNext(field(request, "next")) || "/account";

  /** Turns a sign-in outcome into a session and a redirect, the suspension page, or the form with the message. */
  async function finish(
    request: FastifyRequest,
    reply: FastifyReply,
    location: string,
    outcome: SignInOutcome,
    onFailure: (message: string) => FastifyReply,
  ) {
    if (outcome.kind === "failed") return onFailure(outcome.message);
    if (outcome.kind === "suspended") {
      return renderPage(
        request,
        reply,
        "This account is suspended",
        () => <SuspendedPage reason={outcome.reason} contactEmail={civic.site.contactEmail} />,
        { status: 403 },
      );
    }
    await startSession(civic, request, reply, outcome.account.id);
    return reply.redirect(location, 303);
  }

  app.get(
    "/sign-in",
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          next: Type.Optional(Type.String({ maxLength: 600 })),
          again: Type.Optional(Type.String({ maxLength: 10 })),
        }),
      },
    },
    async (request, reply) => {
      const query = request.query;
      const next = safeNext(query.next ?? "");
      const notice = query.again === "1" ? SIGN_IN_AGAIN : undefined;
      return signInForm(request, reply, { email: "", passwordEmail: "", next }, [], 200, notice);
    },
  );

  app.post("/sign-in/email", { schema: { hide: true } }, async (request, reply) => {
    const typed = field(request, "email", 400);
    const values = { email: typed, passwordEmail: "", next: safeNext(field(request, "next")) };
    const email = normaliseEmail(typed);
    if (!email) {
      return signInForm(request, reply, values, [
        { field: "email", message: "Enter an email address like name@example.com" },
      ]);
    }
    let handle: string;
    try {
      handle = await requestSignInMail(civic, email, requestClient(request), values.next);
    } catch (error) {
      return signInForm(request, reply, values, [{ field: "email", message: limitedMessage(reply, error) }], 429);
    }
    return renderPage(request, reply, "Check your email", (ctx) => (
      <CheckEmailPage csrfToken={ctx.csrfToken} handle={handle} next={values.next} problems={[]} />
    ));
  });

  app.post("/sign-in/code", { schema: { hide: true } }, async (request, reply) => {
    const handle = field(request, "handle", 100);
    const next = safeNext(field(request, "next"));
    const again = (message: string, status = 400) =>
      renderPage(
        request,
        reply,
        "Check your email",
        (ctx) => (
          <CheckEmailPage
            csrfToken={ctx.csrfToken}
            handle={handle}
            next={next}
            problems={[{ field: "code", message }]}
          />
        ),
        { status, hasErrors: true },
      );
    const location = afterSignIn(request);
    let outcome: SignInOutcome;
    try {
      outcome = await signInWithCode(civic, handle, field(request, "code", 20), requestClient(request));
    } catch (error) {
      return again(limitedMessage(reply, error), 429);
    }
    return finish(request, reply, location, outcome, (message) => again(message));
  });

  linkPage(app, {
    path: "/sign-in/link",
    purpose: "sign-in",
    title: "Sign in",
    intro: "Press the button to sign in on this device.",
    button: "Sign in",
    expired: EXPIRED_LINK,
  });

  app.post("/sign-in/link", { schema: { hide: true } }, async (request, reply) => {
    const values = { email: "", passwordEmail: "", next: "" };
    const location = afterSignIn(request);
    let outcome: SignInOutcome;
    try {
      outcome = await signInWithLink(civic, field(request, "token", 100), requestClient(request));
    } catch (error) {
      return signInForm(request, reply, values, [{ field: "email", message: limitedMessage(reply, error) }], 429);
    }
    return finish(request, reply, location, outcome, (message) =>
      signInForm(request, reply, values, [{ field: "email", message }], 410),
    );
  });

  app.post("/sign-in/password", { schema: { hide: true } }, async (request, reply) => {
    const typed = field(request, "email", 400);
    const values = { email: "", passwordEmail: typed, next: safeNext(field(request, "next")) };
    const email = normaliseEmail(typed);
    const password = field(request, "password", 1000);
    if (!email || password === "") {
      const problems: FieldProblem[] = [];
      if (!email) problems.push({ field: "password-email", message: "Enter an email address like name@example.com" });
      if (password === "") problems.push({ field: "password", message: "Enter your password" });
      return signInForm(request, reply, values, problems);
    }
    const location = afterSignIn(request);
    let outcome: SignInOutcome;
    try {
      outcome = await signInWithPassword(civic, email, password, requestClient(request));
    } catch (error) {
      return signInForm(request, reply, values, [{ field: "password", message: limitedMessage(reply, error) }], 429);
    }
    return finish(request, reply, location, outcome, (message) =>
      signInForm(request, reply, values, [{ field: "password", message }], 401),
    );
  });

  app.post("/sign-out", { schema: { hide: true } }, async (request, reply) => {
    if (request.viewer) {
      await endSession(civic.database.db, request.viewer.sessionId);
      clearSessionCookie(civic, reply);
    }
    return reply.redirect("/", 303);
  });
}
