import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import type { Viewer } from "../viewer.js";
import { AppError } from "../http/errors.js";
import { allowedMethods } from "../http/methods.js";
import { can, mayEnterStaff, type PolicyViewer, type StaffRole } from "../policy.js";

export type { StaffRole };

/** The policy's action for a staff page that needs at least `minimum`. */
const ACTION_OF = { moderator: "staff.enter", admin: "staff.administer" } as const;

/** Whether the viewer may open a staff page that needs at least `minimum` (asks the policy). */
export function hasRole(viewer: Pick<PolicyViewer, "role"> | null, minimum: StaffRole): boolean {
  return can(viewer ? { accountId: null, ...viewer } : null, ACTION_OF[minimum]);
}

/** A local path to come back to after signing in ("" when the URL is not a plain local path). */
function nextPath(url: string): string {
  return /^\/(?![/\\])[^\s\\]{0,500}$/.test(url) ? url : "";
}

/** True for the staff console's paths: /admin and everything below it. */
export function isStaffPath(url: string): boolean {
  return url === "/admin" || url.startsWith("/admin/") || url.startsWith("/admin?");
}

/**
 * The check every staff route runs before anything else: an anonymous visitor is sent to sign in (303, back here
 * afterwards; a form post comes back to the page, not the post), a resident gets 403, and a moderator gets 403 on
 * admin-only pages. Returns the viewer when they may pass, or null when the reply is already decided (redirect).
 */

export function checkStaff(request: FastifyRequest, reply: FastifyReply, minimum: StaffRole): Viewer | null {
  const viewer = request.viewer;
  if (!viewer) {
    // A page comes back to itself; a form post comes back to the staff home (its form token would be stale).
    const back = request.method === "GET" || request.method === "HEAD" ? nextPath(request.url) : "";
    void reply.redirect(`/sign-in?next=${encodeURIComponent(back || "/admin")}`, 303);
    return null;
  }
  if (!can(viewer, ACTION_OF[minimum])) {
    throw new AppError(
      "forbidden",
      can(viewer, "staff.enter")
        ? "This page is for administrators only. Ask an administrator if you need it."
        : "This page is for the volunteers who run the platform. You are signed in, but your account is not a staff account.",
    );
  }
  return viewer;
}

/** The viewer of a request that has passed a staff guard (for handlers inside a guarded scope); a staff role. */
export function staffViewer(request: FastifyRequest): Viewer & { role: StaffRole } {
  const viewer = request.viewer;
  if (!viewer || !mayEnterStaff(viewer)) throw new AppError("forbidden", "This page is for staff only.");
  return viewer;
}

/** A Fastify scope whose routes are typed from their TypeBox schemas. */
export type StaffScope = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The admin-only routes of each app, keyed by its route list (`civic.routes`); filled by guardedScope. */
const adminOnlyRoutes = new WeakMap<readonly unknown[], { method: string; url: string }[]>();

function adminOnlyRoutesOf(routes: readonly unknown[]): { method: string; url: string }[] {
  let list = adminOnlyRoutes.get(routes);
  if (!list) {
    list = [];
    adminOnlyRoutes.set(routes, list);
  }
  return list;
}

/**
 * Whether every route at `url` is admin-only: then the path is an administrator's business whatever the method,
 * and a moderator asking it with a method it lacks gets the admin guard's 403 rather than a 405 whose Allow header
 * describes the page (the staff console asks this before its 405).
 */
export function isAdminOnlyPath(routes: readonly { method: string; url: string }[], url: string): boolean {
  const all = allowedMethods(routes, url);
  if (all.length === 0) return false;
  const adminOnly = new Set(allowedMethods(adminOnlyRoutesOf(routes), url));
  return all.every((method) => adminOnly.has(method));
}

/**
 * Registers `routes` behind the guard: every route in it needs at least `minimum`. The guard runs as an onRequest
 * hook, after the session is known and before the body is read or the form token checked.
 */
export async function guardedScope(
  app: FastifyInstance,
  minimum: StaffRole,
  routes: (scope: StaffScope) => Promise<void> | void,
): Promise<void> {
  await app.register(async (scope) => {
    if (minimum === "admin") {
      const list = adminOnlyRoutesOf(app.civic.routes);
      scope.addHook("onRoute", (route) => {
        for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
          list.push({ method, url: route.url });
        }
      });
    }
    scope.addHook("onRequest", async (request, reply) => {
      // null: the reply is decided (a redirect to sign in), and ends the request here.
      if (!checkStaff(request, reply, minimum)) return reply;
    });
    await routes(scope.withTypeProvider<TypeBoxTypeProvider>());
  });
}
