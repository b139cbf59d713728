import { parseArgs } from "node:util";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { type Command, UsageError } from "./core/cli.js";
import { backupCommands } from "./core/db/backup-cli.js";
import { openDatabase } from "./core/db/database.js";
import { migrateToLatest } from "./core/db/migrations/index.js";
import { mailCommands } from "./core/mail/cli.js";
import { isDatabaseEmpty, seedDemoVillage } from "./demo/seed.js";
import { mediaStorage } from "./core/media/storage.js";
import { FEATURES } from "./features.js";

export type { Command, CommandContext } from "./core/cli.js";
export { UsageError };

export const commands: Record<string, Command> = {
  migrate: {
    summary: "Bring the database schema up to date",
    usage: "civic migrate",
    async run({ out }) {
      out("Database is up to date.");
      return 0;
    },
  },
  seed: {
    summary: "Load the demo village into an empty database",
    usage: "civic seed",
    async run({ config, database, out, err }) {
      if (
        !(await isDatabaseEmpty(database.db)) ||
        !(await seedDemoVillage(database.db, new Date(), mediaStorage(config)))
      ) {
        err("The database already has data; the demo village is only loaded into an empty database.");
        return 1;
      }
      out("Loaded the demo village.");
      return 0;
    },
  },
  ...mailCommands,
  ...backupCommands,
  // Every feature's commands (manifests' `commands`), in feature-list order.
  ...Object.assign({}, ...FEATURES.map((f) => f.commands ?? {})),
};

function help(out: (line: string) => void): void {
  out("Usage: civic <command> [options]\n\nCommands:");
  for (const [name, c] of Object.entries(commands)) out(`  ${name.padEnd(22)} ${c.summary}`);
  out("\nConfiguration comes from environment variables (see docs/configuration.md).");
}

/** Runs the CLI with the given arguments; returns the exit code. Used by bin/civic.js and by tests. */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
  io: { out: (l: string) => void; err: (l: string) => void } = { out: console.log, err: console.error },
): Promise<number> {
  const [name, sub, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    help(io.out);
    return name ? 0 : 2;
  }
  const key = sub && commands[`${name} ${sub}`] ? `${name} ${sub}` : name;
  const command = commands[key];
  if (!command) {
    io.err(`civic: unknown command "${name}". Run "civic help" for the list.`);
    return 2;
  }
  const args = key === name ? [sub, ...rest].filter((a): a is string => a !== undefined) : rest;
  if (args.includes("--help") || args.includes("-h")) {
    io.out(`Usage: ${command.usage}`);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 1;
    }
    throw error;
  }
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(database.db);
    return await command.run({ config, database, args, env, out: io.out, err: io.err });
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\nUsage: ${command.usage}`);
      return 2;
    }
    io.err(`civic ${key}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await database.close();
  }
}

export { parseArgs };

const entry = process.argv[1] ?? "";
if (/(cli\.(js|ts)|civic(\.js)?)$/.test(entry)) {
  runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
