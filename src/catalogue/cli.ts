import { parseArgs } from "node:util";
import { type Command, UsageError } from "../core/cli.js";
import { parseId } from "../core/http/ids.js";
import {
  checkDepartmentConnection,
  DEFAULT_STATUS_TABLE_TEXT,
  parseMapping,
  parseStatusTable,
  setDepartmentDelivery,
} from "./delivery.js";

/** `civic departments delivery|check`: a department's delivery method (email or Open311), for operators. */
export const departmentCommands: Record<string, Command> = {
  "departments delivery": {
    summary: "Set how a department receives reports: email, or a council's Open311 endpoint",
    usage:
      "civic departments delivery ID --method email|open311 [--endpoint URL] [--api-key-env VAR] [--jurisdiction ID] " +
      "[--services ourCategory=theirService,...] [--attributes theirAttribute=ourQuestion,...] " +
      "[--statuses theirStatus=ourStatus,...]\n" +
      "  The API key is read from the environment variable named by --api-key-env (never from the command line), " +
      "stored sealed with FORWARDING_SECRET (or SESSION_SECRET) and never shown again.\n" +
      "  --statuses maps the council's Open311 status words to ours (or to ignore: its notes only), over the default " +
      `table (${DEFAULT_STATUS_TABLE_TEXT.replace(/\n/g, ",")}); --statuses "" keeps the default table only.`,
    async run({ config, database, args, env, out }) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        strict: true,
        options: {
          method: { type: "string" },
          endpoint: { type: "string" },
          "api-key-env": { type: "string" },
          jurisdiction: { type: "string" },
          services: { type: "string" },
          attributes: { type: "string" },
          statuses: { type: "string" },
        },
      });
      const id = parseId(positionals[0]);
      if (id === null || positionals.length !== 1) throw new UsageError("Give the id of one department.");
      if (values.method !== "email" && values.method !== "open311") throw new UsageError("--method email|open311");
      let apiKey: string | undefined;
      if (values["api-key-env"] !== undefined) {
        apiKey = (env ?? process.env)[values["api-key-env"]];
        if (apiKey === undefined) throw new UsageError(`The variable ${values["api-key-env"]} is not set.`);
      }
      await setDepartmentDelivery(
        database.db,
        config,
        id,
        {
          method: values.method,
          endpoint: values.endpoint,
          apiKey,
          jurisdiction: values.jurisdiction,
          services: values.services === undefined ? undefined : parseMapping(values.services),
          attributes: values.attributes === undefined ? undefined : parseMapping(values.attributes),
          statuses: values.statuses === undefined ? undefined : parseStatusTable(values.statuses),
        },
        { accountId: null, at: new Date() },
      );
      out(`Department ${id} now receives reports by ${values.method === "email" ? "email" : "Open311"}.`);
      if (apiKey !== undefined) out("The API key is stored sealed; it is not shown again.");
      return 0;
    },
  },
  "departments check": {
    summary: "Fetch a department's Open311 services.json and show which categories map to an offered service",
    usage: "civic departments check ID",
    async run({ config, database, args, out, err }) {
      const id = parseId(args[0]);
      if (id === null || args.length !== 1) throw new UsageError("Give the id of one department.");
      const check = await checkDepartmentConnection(database.db, config, id);
      if (!check.ok) {
        err(`Could not read the council's services: ${check.error ?? "unknown"}`);
        return 1;
      }
      out(`The council offers ${check.services.length} service(s).`);
      for (const c of check.categories) {
        const verdict = !c.serviceCode
          ? "not mapped"
          : c.offered
            ? "maps"
            : "mapped, but the council does not offer it";
        out([c.code, c.serviceCode ?? "-", verdict].join("\t"));
      }
      for (const s of check.unmappedServices)
        out(`Council service not mapped: ${s.code}${s.name ? ` (${s.name})` : ""}`);
      for (const a of check.unmappedAttributes) {
        out(`Required question not mapped: ${a.code} of ${a.service}${a.description ? ` (${a.description})` : ""}`);
      }
      for (const d of check.definitionErrors) out(`The questions of ${d.service} could not be read: ${d.error}`);
      return 0;
    },
  },
};
