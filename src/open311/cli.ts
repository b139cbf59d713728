import { parseArgs } from "node:util";
import { type Command, UsageError } from "../core/cli.js";
import { parseId } from "../core/http/ids.js";
import { createApiKey, listApiKeys, revokeApiKey } from "./keys.js";

/** `civic api-keys create|list|revoke`: keys for Open311 clients that submit reports. */
export const apiKeyCommands: Record<string, Command> = {
  "api-keys create": {
    summary: "Create an Open311 API key (printed once; only its hash is stored)",
    usage: "civic api-keys create --name NAME",
    async run({ database, args, out }) {
      const { values } = parseArgs({ args, options: { name: { type: "string" } }, strict: true });
      const name = values.name?.trim();
      if (!name) throw new UsageError("Give the key a name that says who uses it: --name NAME");
      if (name.length > 100) throw new UsageError("The name must be at most 100 characters.");
      const created = await createApiKey(database.db, name, new Date());
      out(`Created API key ${created.id} for "${created.name}".`);
      out("Give this key to the client now; it is not stored and cannot be shown again:");
      out(created.key);
      return 0;
    },
  },
  "api-keys list": {
    summary: "List Open311 API keys (never the keys themselves)",
    usage: "civic api-keys list",
    async run({ database, args, out }) {
      if (args.length > 0) throw new UsageError(`Unexpected argument "${args[0]}".`);
      const keys = await listApiKeys(database.db);
      if (keys.length === 0) {
        out('No API keys. Create one with: civic api-keys create --name "Client name"');
        return 0;
      }
      out(["ID", "PREFIX", "STATUS", "CREATED", "LAST USED", "NAME"].join("\t"));
      for (const k of keys) {
        const status = k.revoked_at ? `revoked ${k.revoked_at.slice(0, 10)}` : "active";
        out([k.id, `${k.prefix}…`, status, k.created_at.slice(0, 10), k.last_used_at ?? "never", k.name].join("\t"));
      }
      return 0;
    },
  },
  "api-keys revoke": {
    summary: "Revoke an Open311 API key by its id",
    usage: "civic api-keys revoke ID",
    async run({ database, args, out, err }) {
      const [raw, extra] = args;
      const id = parseId(raw);
      if (!raw || extra !== undefined || id === null) throw new UsageError("Give the id of one key.");
      if (!(await revokeApiKey(database.db, id, new Date()))) {
        err(`There is no active API key with id ${raw}.`);
        return 1;
      }
      out(`Revoked API key ${raw}. Requests with it are now refused.`);
      return 0;
    },
  },
};
