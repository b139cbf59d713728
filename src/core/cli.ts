import type { Config } from "../config.js";
import type { Database } from "./db/database.js";

/** What a command gets: the configuration, an open, migrated database, its arguments and an output. */
export interface CommandContext {
  config: Config;
  database: Database;
  args: string[];
  /** The environment the configuration was read from, when not process.env (a command reads a secret from it). */
  env?: Record<string, string | undefined>;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** A `civic` command; features list theirs in their manifest (`commands`), keyed by name ("users add"). */
export interface Command {
  summary: string;
  usage: string;
  /** Returns the process exit code. */
  run(ctx: CommandContext): Promise<number>;
}

/** Thrown by a command for bad arguments: the CLI prints the message and the command's usage, and exits with 2. */
export class UsageError extends Error {}
