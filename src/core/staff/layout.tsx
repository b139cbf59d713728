import type { FastifyReply, FastifyRequest } from "fastify";
import type { ComponentChildren, VNode } from "preact";
import { pageContext } from "../context.js";
import { Layout, type PageContext } from "../web/layout.js";
import { sendPage } from "../web/render.js";
import { staffPages } from "./console.js";
import { type StaffNavEntry, staffNav } from "./nav.js";

export interface AdminPageOptions {
  status?: number;
  /** The form on the page failed validation: the title starts with "Error: ". */
  hasErrors?: boolean;
  scripts?: string[];
  /** Extra stylesheets by asset name (e.g. "leaflet.css" for a page with a map). */
  styles?: string[];
}

/** The staff console's navigation: the pages this viewer may open. */
export function StaffNav({
  ctx,
  role,
  pages,
  className = "staff-nav",
}: {
  ctx: PageContext;
  role: "moderator" | "admin" | "resident";
  pages: readonly StaffNavEntry[];
  className?: string;
}) {
  const path = ctx.path;
  return (
    <nav class={className} aria-label="Staff">
      <ul>
        {staffNav(pages, { role }).map((e) => (
          <li key={e.path}>
            <a
              href={e.path}
              aria-current={
                path === e.path || (e.path !== "/admin" && path.startsWith(`${e.path}/`)) ? "page" : undefined
              }
            >
              {e.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function AdminShell({
  ctx,
  role,
  pages,
  children,
}: {
  ctx: PageContext;
  role: "moderator" | "admin" | "resident";
  pages: readonly StaffNavEntry[];
  children: ComponentChildren;
}) {
  return (
    <div class="staff-console">
      <StaffNav ctx={ctx} role={role} pages={pages} className="staff-nav staff-nav-wide" />
      {/* On a narrow screen the same links fold behind a Staff menu button that works without JavaScript. */}
      <details class="staff-menu">
        <summary>Staff menu</summary>
        <StaffNav ctx={ctx} role={role} pages={pages} />
      </details>
      <div class="staff-main">{children}</div>
    </div>
  );
}

/** Renders a staff page: the site layout with the staff navigation. The body gets the context (form token). */
export function renderAdminPage(
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  body: (ctx: PageContext) => VNode,
  options: AdminPageOptions = {},
): FastifyReply {
  const ctx = pageContext(request);
  const role = request.viewer?.role ?? "resident";
  return sendPage(
    reply,
    <Layout
      ctx={ctx}
      title={`${options.hasErrors ? "Error: " : ""}${title} (staff)`}
      scripts={options.scripts}
      styles={options.styles}
    >
      <AdminShell ctx={ctx} role={role} pages={staffPages(request.server.civic.features)}>
        {body(ctx)}
      </AdminShell>
    </Layout>,
    options.status ?? 200,
  );
}
