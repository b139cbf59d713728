import { COMMAND_LINE_ACTOR, recordAudit } from "../core/staff/audit.js";
import { type Command, UsageError } from "../core/cli.js";
import { endAllSessions } from "./sessions.js";
import { findAccountByEmail, findOrCreateAccount, isRole, listAccounts, ROLES, setRole } from "./repository.js";
import { normaliseEmail } from "../core/email-address.js";

function parse(args: string[]): { email: string; role: (typeof ROLES)[number] } {
  const [rawEmail, rawRole, extra] = args;
  if (!rawEmail || !rawRole || extra !== undefined) throw new UsageError("Give an email address and a role.");
  const email = normaliseEmail(rawEmail);
  if (!email) throw new UsageError(`"${rawEmail}" is not an email address.`);
  const role = rawRole.toLowerCase();
  if (!isRole(role)) throw new UsageError(`The role must be one of: ${ROLES.join(", ")}.`);
  return { email, role };
}

/** `civic users list|grant|revoke`: accounts and their roles (the first admin is made this way). */
export const userCommands: Record<string, Command> = {
  "users list": {
    summary: "List accounts with their roles (staff first)",
    usage: "civic users list",
    async run({ database, args, out }) {
      if (args.length > 0) throw new UsageError(`Unexpected argument "${args[0]}".`);
      const accounts = await listAccounts(database.db);
      if (accounts.length === 0) {
        out("No accounts yet. Make the first admin with: civic users grant EMAIL admin");
        return 0;
      }
      out(["EMAIL", "ROLE", "STATUS", "CREATED"].join("\t"));
      for (const a of accounts) {
        out(
          [
            a.email,
            a.role,
            a.suspended_at ? `suspended ${a.suspended_at.slice(0, 10)}` : "active",
            a.created_at.slice(0, 10),
          ].join("\t"),
        );
      }
      return 0;
    },
  },
  "users grant": {
    summary: "Give an account a role (resident, moderator, admin); creates the account if needed",
    usage: "civic users grant EMAIL ROLE",
    async run({ database, args, out }) {
      const { email, role } = parse(args);
      const now = new Date();
      const account = await findOrCreateAccount(database.db, email, now);
      await database.db.transaction().execute(async (tx) => {
        await setRole(tx, account.id, role, now);
        await recordAudit(tx, {
          actorId: COMMAND_LINE_ACTOR,
          action: "role.grant",
          itemType: "account",
          itemId: account.id,
          details: { from: account.role, to: role },
          at: now,
        });
      });
      out(`${email} is now ${role === "admin" ? "an" : "a"} ${role}. They sign in at /sign-in with this address.`);
      return 0;
    },
  },
  "users revoke": {
    summary: "Take a role away from an account (it becomes a resident)",
    usage: "civic users revoke EMAIL ROLE",
    async run({ database, args, out, err }) {
      const { email, role } = parse(args);
      const account = await findAccountByEmail(database.db, email);
      if (!account || account.role !== role) {
        err(`${email} does not have the role ${role}.`);
        return 1;
      }
      const now = new Date();
      await database.db.transaction().execute(async (tx) => {
        await setRole(tx, account.id, "resident", now);
        await recordAudit(tx, {
          actorId: COMMAND_LINE_ACTOR,
          action: "role.revoke",
          itemType: "account",
          itemId: account.id,
          details: { from: role, to: "resident" },
          at: now,
        });
      });
      // Signed-in pages carry the old role until the next request; ending sessions makes the change immediate.
      await endAllSessions(database.db, account.id);
      out(`${email} is no longer ${role === "admin" ? "an" : "a"} ${role}; their sessions are ended.`);
      return 0;
    },
  },
};
