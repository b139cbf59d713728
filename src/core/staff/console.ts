import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { Feature } from "../context.js";
import { sendError } from "../http/error-handler.js";
import { AppError } from "../http/errors.js";
import { checkStaff, isAdminOnlyPath, isStaffPath } from "./guard.js";
import { methodNotAllowed } from "../http/methods.js";
import { leaveUncompressed } from "../http/compression.js";
import type { StaffNavEntry } from "./nav.js";

/** Every feature's staff pages, in feature-list order (the navigation sorts them by `order`). */
export function staffPages(features: readonly Feature[]): StaffNavEntry[] {
  return features.flatMap((f) => f.staff?.pages ?? []);
}

/**
 * The staff console: one encapsulated scope under `/admin` whose guard (an `onRequest` hook: at least a moderator,
 * checked before the body is read or the form token looked at) runs for every staff route of every feature, and for
 * unknown paths under `/admin` too (anonymous visitors are sent to sign in, residents get 403, before any 404).
 * Admin-only pages add their own stricter guard inside (`guardedScope(scope, "admin", …)`). A route under `/admin`
 * registered anywhere else stops the app from starting.
 */
export async function registerStaffConsole(app: FastifyInstance, features: readonly Feature[]): Promise<void> {
  const inside = new Set<string>();
  await app.register(
    async (scope) => {
      scope.addHook("onRoute", (route) => {
        inside.add(route.url);
      });
      scope.addHook("onRequest", async (request, reply) => {
        // null: the reply is decided (a redirect to sign in), and ends the request here.
        if (!checkStaff(request, reply, "moderator")) return reply;
        // Staff pages list people (reporters, staff, the audit log's actors) and show their searches back: an
        // answer to a search is not compressed, so its length tells nothing of what it lists (issue 33 #6).
        if (request.url.includes("?")) leaveUncompressed(reply);
      });
      // A path that is admin-only whatever the method is a 403 for a moderator even with a method it lacks.
      scope.addHook("onRequest", async (request, reply) => {
        if (request.is404 && isAdminOnlyPath(request.server.civic.routes, request.url)) {
          checkStaff(request, reply, "admin");
        }
      });
      // After the guards: a staff path asked with a method it lacks is a 405 with Allow (core/http/methods.ts).
      scope.addHook("onRequest", methodNotAllowed());
      scope.setNotFoundHandler((request, reply) =>
        sendError(request, reply, new AppError("not_found", "There is nothing at this address.")),
      );
      const typed = scope.withTypeProvider<TypeBoxTypeProvider>();
      for (const feature of features) await feature.staff?.routes?.(typed);
    },
    { prefix: "/admin" },
  );
  app.addHook("onRoute", (route) => {
    if (isStaffPath(route.url) && !inside.has(route.url)) {
      throw new Error(
        `${route.url} is under /admin but outside the staff console (list it in a manifest's staff.routes)`,
      );
    }
  });
}
