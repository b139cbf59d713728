import type { Feature } from "../core/context.js";
import { userCommands } from "./cli.js";
import { accountData, mailData } from "./data-sources.js";
import { sessionPlugin } from "./plugin.js";
import { accountRoutes } from "./routes.js";

/** Accounts: sign-in (email, password, passkeys), sessions, the account pages, data rights (/account/data, /my-data). */
export const accounts: Feature = {
  name: "accounts",
  menu: [{ path: "/my-data", label: "Your personal data", placement: "footer", order: 20 }],
  plugins: [sessionPlugin],
  routes: [{ plugin: accountRoutes }],
  personalData: [accountData, mailData],
  commands: userCommands,
};
