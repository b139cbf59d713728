import type { Feature } from "../core/context.js";
import { userCommands } from "./cli.js";
import { accountData, mailData } from "./data-sources.js";
import { sessionPlugin } from "./plugin.js";
import { accountRoutes } from "./routes.js";

/** Accounts: sign-in (email, password, passkeys), sessions, the account pages, data rights (/account/data, /my-data). */
export const accounts: Feature = {
  name: "accounts",
  menu: [
    { path: "/sign-in", label: "Sign in", placement: "account", order: 10, audience: "signed-out" },
    { path: "/account", label: "Your account", placement: "account", order: 10, audience: "signed-in" },
    { path: "/my-data", label: "Your personal data", placement: "footer", order: 20 },
  ],
  plugins: [sessionPlugin],
  pages: [
    {
      path: "/sign-in",
      title: "Sign in",
      summary: "Sign in by email link or code, password or passkey, to list your reports and manage your data.",
      placement: "none",
    },
    {
      path: "/my-data",
      title: "Your personal data",
      summary: "Download or erase what the platform holds under your email address, with or without an account.",
      placement: "footer",
    },
  ],
  routes: [{ plugin: accountRoutes }],
  personalData: [accountData, mailData],
  commands: userCommands,
};
