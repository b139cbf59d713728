import { Type } from "typebox";
import { recordAudit } from "../core/staff/audit.js";
import { guardedScope, type StaffScope, staffViewer } from "../core/staff/guard.js";
import { renderAdminPage } from "../core/staff/layout.js";
import type { StaffNavEntry } from "../core/staff/nav.js";
import { normaliseEmail } from "../core/email-address.js";
import { AppError, notFound } from "../core/http/errors.js";
import { formId } from "../core/http/ids.js";
import { AccountModerationPage, BanListPage, ModerationQueuePage, RedactPage } from "./admin-pages.js";
import { addBan, listBans, removeBan } from "./ban-list.js";
import {
  type Actor,
  moderate,
  overruleStrike,
  redactReport,
  requireReason,
  restoreReportText,
  suspendAccount,
  unsuspendAccount,
} from "./decisions.js";
import { accountModeration, moderationQueue, recentDecisions } from "./queue.js";
import { can } from "../core/policy.js";

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [
  { label: "Moderation", path: "/admin/moderation", minimum: "moderator", order: 20 },
  { label: "Ban list", path: "/admin/ban-list", minimum: "admin", order: 70 },
];

const text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
const form = <T extends Record<string, ReturnType<typeof text>>>(fields: T) =>
  Type.Object(fields, { additionalProperties: true });

/** /admin/moderation (queue, decisions, redaction, accounts and strikes) and the admins' /admin/ban-list. */
export async function moderationAdminRoutes(app: StaffScope): Promise<void> {
  const { civic } = app;
  const db = () => civic.database.db;
  const actorOf = (request: Parameters<typeof staffViewer>[0]): Actor => {
    const v = staffViewer(request);
    return { accountId: v.accountId, role: v.role };
  };

  app.get(
    "/moderation",
    { schema: { hide: true, querystring: Type.Object({ done: text(200) }) } },
    async (request, reply) => {
      const [queue, recent] = await Promise.all([moderationQueue(civic, db(), civic.now()), recentDecisions(db())]);
      return renderAdminPage(request, reply, "Moderation", (ctx) => (
        <ModerationQueuePage csrf={ctx.csrfToken} queue={queue} recent={recent} done={request.query.done ?? ""} />
      ));
    },
  );

  app.post(
    "/moderation/decide",
    { schema: { hide: true, body: form({ kind: text(40), id: text(100), action: text(20), reason: text(5000) }) } },
    async (request, reply) => {
      const b = request.body;
      const { item } = await moderate(civic, {
        kind: b.kind ?? "",
        id: (b.id ?? "").trim(),
        action: b.action ?? "",
        reason: b.reason,
        actor: actorOf(request),
      });
      return reply.redirect(`/admin/moderation?done=${encodeURIComponent(`${b.action} ${item.kind} ${item.id}`)}`, 303);
    },
  );

  const refParams = Type.Object({ reference: Type.String({ maxLength: 40 }) });
  app.get(
    "/moderation/reports/:reference/edit",
    { schema: { hide: true, params: refParams } },
    async (request, reply) => {
      const { reference } = request.params;
      const r = await db()
        .selectFrom("reports")
        .select(["reference", "title", "description", "original_title", "original_description"])
        .where("reference", "=", reference)
        .executeTakeFirst();
      if (!r) throw notFound("There is no report with this reference.");
      return renderAdminPage(request, reply, `Edit report ${r.reference}`, (ctx) => (
        <RedactPage
          csrf={ctx.csrfToken}
          reference={r.reference}
          title={r.title}
          description={r.description}
          original={
            r.original_title !== null && r.original_description !== null
              ? { title: r.original_title, description: r.original_description }
              : null
          }
          isAdmin={can(request.viewer, "staff.administer")}
        />
      ));
    },
  );

  app.post(
    "/moderation/reports/:reference/edit",
    {
      schema: {
        hide: true,
        params: refParams,
        body: form({ title: text(1000), description: text(20000), reason: text(5000) }),
      },
    },
    async (request, reply) => {
      const { reference } = request.params;
      const b = request.body;
      await redactReport(civic, {
        reference,
        title: b.title,
        description: b.description,
        reason: b.reason,
        actor: actorOf(request),
      });
      return reply.redirect(`/admin/moderation?done=${encodeURIComponent(`edited report ${reference}`)}`, 303);
    },
  );

  app.get(
    "/moderation/account",
    { schema: { hide: true, querystring: Type.Object({ email: text(254), id: text(100) }) } },
    async (request, reply) => {
      const q = request.query;
      let id = q.id ?? "";
      if (!id && q.email) {
        const email = normaliseEmail(q.email);
        const row = email
          ? await db().selectFrom("accounts").select("id").where("email", "=", email).executeTakeFirst()
          : undefined;
        id = row?.id ?? "";
      }
      const found = id ? await accountModeration(db(), id) : null;
      if (!found) throw notFound("There is no account with this address.");
      return renderAdminPage(request, reply, "Account moderation", (ctx) => (
        <AccountModerationPage
          csrf={ctx.csrfToken}
          isAdmin={can(request.viewer, "staff.administer")}
          account={found.account}
          strikes={found.strikes}
        />
      ));
    },
  );

  app.post(
    "/moderation/account/suspend",
    { schema: { hide: true, body: form({ account: text(100), reason: text(5000), hide_content: text(10) }) } },
    async (request, reply) => {
      const b = request.body;
      await suspendAccount(civic, {
        accountId: b.account ?? "",
        reason: b.reason,
        hideContent: b.hide_content === "yes",
        actor: actorOf(request),
      });
      return reply.redirect(`/admin/moderation/account?id=${encodeURIComponent(b.account ?? "")}`, 303);
    },
  );

  app.post(
    "/moderation/account/unsuspend",
    { schema: { hide: true, body: form({ account: text(100), reason: text(5000) }) } },
    async (request, reply) => {
      const b = request.body;
      await unsuspendAccount(civic, { accountId: b.account ?? "", reason: b.reason, actor: actorOf(request) });
      return reply.redirect(`/admin/moderation/account?id=${encodeURIComponent(b.account ?? "")}`, 303);
    },
  );

  await guardedScope(app, "admin", (scope) => {
    // Restoring a report's original text and overruling a strike are administrators' decisions.
    scope.post(
      "/moderation/reports/:reference/restore",
      { schema: { hide: true, params: refParams, body: form({ reason: text(5000) }) } },
      async (request, reply) => {
        const { reference } = request.params;
        await restoreReportText(civic, {
          reference,
          reason: request.body.reason,
          actor: actorOf(request),
        });
        return reply.redirect(`/admin/moderation?done=${encodeURIComponent(`restored report ${reference}`)}`, 303);
      },
    );

    scope.post(
      "/moderation/strikes/overrule",
      { schema: { hide: true, body: form({ strike: text(20), reason: text(5000) }) } },
      async (request, reply) => {
        const b = request.body;
        const strikeId = await overruleStrike(civic, { strikeId: b.strike, reason: b.reason, actor: actorOf(request) });
        return reply.redirect(`/admin/moderation?done=${encodeURIComponent(`overruled strike ${strikeId}`)}`, 303);
      },
    );

    scope.get("/ban-list", { schema: { hide: true } }, async (request, reply) => {
      const bans = await listBans(db());
      return renderAdminPage(request, reply, "Ban list", (ctx) => <BanListPage csrf={ctx.csrfToken} bans={bans} />);
    });

    scope.post(
      "/ban-list",
      { schema: { hide: true, body: form({ pattern: text(300), reason: text(5000) }) } },
      async (request, reply) => {
        const b = request.body;
        const reason = requireReason(b.reason);
        const actor = actorOf(request);
        await db()
          .transaction()
          .execute(async (tx) => {
            const pattern = await addBan(tx, { pattern: b.pattern ?? "", reason, by: actor.accountId }, civic.now());
            await recordAudit(tx, {
              actorId: actor.accountId,
              action: "ban.add",
              itemType: "ban",
              itemId: pattern,
              reason,
              at: civic.now(),
            });
          });
        return reply.redirect("/admin/ban-list", 303);
      },
    );

    scope.post(
      "/ban-list/remove",
      { schema: { hide: true, body: form({ id: text(20), reason: text(5000) }) } },
      async (request, reply) => {
        const b = request.body;
        const reason = requireReason(b.reason);
        const actor = actorOf(request);
        const id = formId(b.id, "id");
        await db()
          .transaction()
          .execute(async (tx) => {
            const pattern = await removeBan(tx, id);
            if (!pattern)
              throw new AppError(
                "not_found",
                "There is no such entry on the ban list: it may have been removed already.",
              );
            await recordAudit(tx, {
              actorId: actor.accountId,
              action: "ban.remove",
              itemType: "ban",
              itemId: pattern,
              reason,
              at: civic.now(),
            });
          });
        return reply.redirect("/admin/ban-list", 303);
      },
    );
  });
}
