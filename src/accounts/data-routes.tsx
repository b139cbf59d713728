import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Viewer } from "../core/context.js";
import { AppError, notFound } from "../core/http/errors.js";
import { clearDeviceCache } from "../core/http/private-responses.js";
import { Slots } from "../core/limits/slots.js";
import { LastAdminError } from "./admins.js";
import { sourceContext } from "./account-service.js";
import { sendChallengeMail } from "./challenge-mail.js";
import { openLink } from "../core/links.js";
import { listExtras, ownReports } from "../reports/index.js";
import { DataChoices, ErasedPage, EraseForm, MyDataRequestPage, MyDataSentPage, MyReportsPage } from "./data-pages.js";
import { myDataMail } from "./mails.js";
import {
  type DataSubject,
  erasePersonalData,
  listConsents,
  resolveSubject,
  streamPersonalData,
  withdrawConsent,
} from "./personal-data.js";
import { field, limitedMessage, renderPage, requireViewer } from "./page.js";
import { findAccountByEmail, getAccount } from "./repository.js";
import { clearSessionCookie } from "./sessions.js";
import { ConfirmLinkPage } from "./sign-in-pages.js";
import { LinkTokenParams } from "./link-page.js";
import { DOWNLOAD_LIMIT_MESSAGE, LIMITS } from "./limits.js";
import { normaliseEmail } from "../core/email-address.js";
import { requestClient } from "../core/http/client-address.js";

const EXPIRED = "This link has expired. Ask for a new one on the “Your personal data” page.";
/** Seconds a client is asked to wait when every export slot is busy. */
const EXPORT_RETRY_AFTER_SECONDS = 30;

/** /account/reports, /account/data, /account/delete and /my-data (the same rights without an account). */
export async function dataRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const civic = app.civic;
  const db = () => civic.database.db;
  /** Downloads being streamed in this process (MAX_CONCURRENT_EXPORTS); one more is answered 503. */
  const exportSlots = new Slots(civic.config.exports.maxConcurrent);

  async function accountSubject(viewer: Viewer): Promise<DataSubject> {
    const account = await getAccount(db(), viewer.accountId);
    if (!account) throw notFound();
    return { accountId: account.id, email: account.email };
  }

  async function tokenSubject(token: string): Promise<{ subject: DataSubject } | null> {
    const link = await openLink(db(), "my-data", token, civic.now());
    if (!link) return null;
    const account = await findAccountByEmail(db(), link.email);
    return { subject: { accountId: account?.id ?? null, email: link.email } };
  }

  /**
   * The download, for both routes: counted against the person's and the client's download limits (429), then, if
   * one of the process's export slots is free (503 with Retry-After otherwise), streamed as it is produced. The
   * slot is held until the answer is sent or the client goes away.
   */
  async function sendZip(request: FastifyRequest, reply: FastifyReply, subject: DataSubject) {
    const who = subject.accountId ? `account:${subject.accountId}` : `email:${subject.email}`;
    await civic.limits.enforce(
      [
        [LIMITS.downloadsPerSubject, who],
        [LIMITS.downloadsPerClient, requestClient(request)],
      ],
      DOWNLOAD_LIMIT_MESSAGE,
    );
    if (!(await exportSlots.take(0))) {
      throw new AppError(
        "service_unavailable",
        "Many downloads are being prepared at the moment. Please try again soon.",
        {
          headers: { "retry-after": String(EXPORT_RETRY_AFTER_SECONDS) },
        },
      );
    }
    let held = true;
    const release = () => {
      if (held) exportSlots.give();
      held = false;
    };
    try {
      const zip = await streamPersonalData(sourceContext(civic), subject);
      zip.once("close", release);
      reply.raw.once("close", release);
      const day = civic.now().toISOString().slice(0, 10);
      return reply
        .header("content-type", "application/zip")
        .header("content-disposition", `attachment; filename="my-data-${day}.zip"`)
        .header("cache-control", "no-store")
        .send(zip);
    } catch (error) {
      release();
      throw error;
    }
  }

  async function choices(
    request: FastifyRequest,
    reply: FastifyReply,
    subject: DataSubject,
    mode: { token: string } | null,
  ) {
    const ctx = sourceContext(civic);
    const all = await resolveSubject(ctx, subject);
    const consents = await listConsents(ctx, all);
    const count = await ownReports(db(), all)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    const hidden = mode ? { token: mode.token } : undefined;
    return renderPage(request, reply, "Your personal data", (page) => (
      <DataChoices
        csrfToken={page.csrfToken}
        heading="Your personal data"
        downloadAction={mode ? "/my-data/download" : "/account/data/download"}
        eraseAction={mode ? "/my-data/erase" : "/account/delete"}
        withdrawAction={mode ? "/my-data/withdraw" : "/account/consents/withdraw"}
        hidden={hidden}
        consents={consents}
        reportCount={Number(count?.n ?? 0)}
        hasAccount={subject.accountId !== null}
      />
    ));
  }

  /** The erasure, after the confirmation box was ticked; re-renders the form with a message otherwise. */
  async function erase(
    request: FastifyRequest,
    reply: FastifyReply,
    subject: DataSubject,
    action: string,
    hidden?: Record<string, string>,
  ) {
    const refuse = (message: string, status: number) =>
      renderPage(
        request,
        reply,
        "Erase your data",
        (ctx) => (
          <>
            <h1>Erase your data</h1>
            <EraseForm
              csrfToken={ctx.csrfToken}
              action={action}
              hidden={hidden}
              hasAccount={subject.accountId !== null}
              problems={[{ field: "confirm", message }]}
            />
          </>
        ),
        { status, hasErrors: true },
      );
    if (field(request, "confirm") !== "yes") {
      return refuse("Tick the box to confirm that you want your data erased", 400);
    }
    try {
      await erasePersonalData(sourceContext(civic), subject, {
        removePublicContent: field(request, "remove_public") === "yes",
      });
    } catch (error) {
      if (error instanceof LastAdminError) return refuse(error.message, 409);
      throw error;
    }
    // Nothing of this person's is to stay on this device: the browser's cache and the service worker's.
    clearDeviceCache(reply);
    const signedOut = request.viewer !== null && request.viewer.accountId === subject.accountId;
    if (signedOut) {
      clearSessionCookie(civic, reply);
      request.viewer = null;
    }
    return renderPage(request, reply, "Your data is erased", () => (
      <ErasedPage hadAccount={subject.accountId !== null} />
    ));
  }

  app.get("/account/reports", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    const rows = await ownReports(db(), await resolveSubject(sourceContext(civic), await accountSubject(viewer)))
      .innerJoin("categories", "categories.code", "reports.category_code")
      .select([
        "reports.id",
        "reference",
        "title",
        "categories.name as category",
        "status",
        "visibility",
        "reports.created_at",
        "reports.latitude",
        "reports.longitude",
        "reports.place_id",
        "reports.location_text",
      ])
      .where("visibility", "!=", "removed")
      .orderBy("reports.created_at", "desc")
      .limit(1000)
      .execute();
    const extras = await listExtras(db(), rows);
    const reports = rows.map((r) => ({
      ...r,
      placeInWords: extras.get(r.id)?.placeInWords ?? null,
      thumbnail: extras.get(r.id)?.thumbnail ?? null,
    }));
    return renderPage(request, reply, "Your reports", () => <MyReportsPage reports={reports} />);
  });

  app.get("/account/data", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    return choices(request, reply, await accountSubject(viewer), null);
  });

  app.post("/account/data/download", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    return sendZip(request, reply, await accountSubject(viewer));
  });

  app.get("/account/delete", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    return renderPage(request, reply, "Delete your account", (ctx) => (
      <>
        <h1>Delete your account</h1>
        <EraseForm csrfToken={ctx.csrfToken} action="/account/delete" hasAccount problems={[]} />
      </>
    ));
  });

  app.post("/account/delete", { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request, reply);
    if (!viewer) return reply;
    return erase(request, reply, await accountSubject(viewer), "/account/delete");
  });

  app.get("/my-data", { schema: { hide: true } }, async (request, reply) =>
    renderPage(request, reply, "Your personal data", (ctx) => (
      <MyDataRequestPage csrfToken={ctx.csrfToken} email="" problems={[]} />
    )),
  );

  app.post("/my-data", { schema: { hide: true } }, async (request, reply) => {
    const typed = field(request, "email", 400);
    const email = normaliseEmail(typed);
    const again = (message: string, status: number) =>
      renderPage(
        request,
        reply,
        "Your personal data",
        (ctx) => <MyDataRequestPage csrfToken={ctx.csrfToken} email={typed} problems={[{ field: "email", message }]} />,
        { status, hasErrors: true },
      );
    if (!email) return again("Enter an email address like name@example.com", 400);
    try {
      await sendChallengeMail(civic, {
        purpose: "my-data",
        email,
        accountId: null,
        client: requestClient(request),
        linkPath: "/my-data/open",
        compose: (link) => myDataMail(civic.site, email, link),
      });
    } catch (error) {
      return again(limitedMessage(reply, error), 429);
    }
    return renderPage(request, reply, "Check your email", () => <MyDataSentPage />);
  });

  app.get("/my-data/open/:token", { schema: { hide: true, params: LinkTokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const found = await tokenSubject(token);
    // The token in this page's address never reaches another site. Not "no-referrer": browsers then send
    // `Origin: null` with the page's form post, which the form check refuses (core/http/csrf.ts).
    reply.header("referrer-policy", "same-origin");
    reply.header("cache-control", "no-store");
    if (!found) {
      return renderPage(
        request,
        reply,
        "Your personal data",
        (ctx) => (
          <ConfirmLinkPage
            csrfToken={ctx.csrfToken}
            token={null}
            action=""
            title="Your personal data"
            intro=""
            button=""
            expired={EXPIRED}
          />
        ),
        { status: 410 },
      );
    }
    // Opening the link changes nothing, and proves the address for this link alone: whoever is signed in on this
    // device, the address does not become their account's (that takes "Add another address of yours" on /account).
    return choices(request, reply, found.subject, { token });
  });

  /** The my-data forms carry the link's token; each checks it is still valid. */
  async function withToken(
    request: FastifyRequest,
    reply: FastifyReply,
    then: (s: DataSubject, token: string) => Promise<FastifyReply>,
  ) {
    const token = field(request, "token", 100);
    const found = await tokenSubject(token);
    if (!found) {
      return renderPage(
        request,
        reply,
        "Your personal data",
        () => (
          <>
            <h1>Your personal data</h1>
            <p>{EXPIRED}</p>
            <p>
              <a href="/my-data">Ask for a new link</a>
            </p>
          </>
        ),
        { status: 410 },
      );
    }
    return then(found.subject, token);
  }

  app.post("/my-data/download", { schema: { hide: true }, config: { personal: true } }, async (request, reply) =>
    withToken(request, reply, (subject) => sendZip(request, reply, subject)),
  );

  app.post("/my-data/withdraw", { schema: { hide: true }, config: { personal: true } }, async (request, reply) =>
    withToken(request, reply, async (subject, token) => {
      await withdrawConsent(sourceContext(civic), subject, field(request, "consent", 300));
      return reply.redirect(`/my-data/open/${token}`, 303);
    }),
  );

  app.post("/my-data/erase", { schema: { hide: true }, config: { personal: true } }, async (request, reply) =>
    // Erasure removes the link's challenge too (it holds the address), so the link stops working.
    withToken(request, reply, (subject, token) => erase(request, reply, subject, "/my-data/erase", { token })),
  );
}
