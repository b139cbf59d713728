import { csvRecord } from "../core/csv.js";
import { recordAudit } from "../core/staff/audit.js";
import { guardedScope, type StaffScope, staffViewer } from "../core/staff/guard.js";
import { renderAdminPage } from "../core/staff/layout.js";
import type { StaffNavEntry } from "../core/staff/nav.js";
import { can } from "../core/policy.js";

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [
  { label: "Volunteers", path: "/admin/volunteers", minimum: "moderator", order: 56 },
];

/** /admin/volunteers: confirmed sign-ups per project (staff), and their CSV export (admins; audited). */
export async function volunteerStaffRoutes(app: StaffScope): Promise<void> {
  const { civic } = app;
  const db = () => civic.database.db;
  const confirmed = () =>
    db()
      .selectFrom("volunteers")
      .leftJoin("projects", "projects.id", "volunteers.project_id")
      .select([
        "volunteers.id",
        "volunteers.name",
        "volunteers.email",
        "volunteers.phone",
        "volunteers.role",
        "volunteers.interests",
        "volunteers.availability",
        "volunteers.consent_text",
        "volunteers.confirmed_at",
        "projects.title as project_title",
      ])
      .where("volunteers.status", "=", "confirmed");

  app.get("/volunteers", { schema: { hide: true } }, async (request, reply) => {
    const rows = await confirmed().orderBy("projects.title").orderBy("volunteers.id").limit(5000).execute();
    const groups = new Map<string, typeof rows>();
    for (const r of rows) {
      const key = r.project_title ?? "Any project";
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    return renderAdminPage(request, reply, "Volunteers", () => (
      <>
        <h1>Volunteers</h1>
        <p>
          Confirmed sign-ups only, per project.{" "}
          {can(request.viewer, "staff.administer") ? <a href="/admin/volunteers.csv">Download as CSV</a> : null}
        </p>
        {groups.size === 0 ? <p>No confirmed sign-ups yet.</p> : null}
        {[...groups.entries()].map(([title, list], i) => (
          <section key={title} aria-labelledby={`group-${i}`}>
            <h2 id={`group-${i}`}>
              {title} ({list.length})
            </h2>
            <table class="stacked">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Contact</th>
                  <th scope="col">Role</th>
                  <th scope="col">Interests</th>
                  <th scope="col">Availability</th>
                </tr>
              </thead>
              <tbody>
                {list.map((r) => (
                  <tr key={r.id}>
                    <td data-label="Name">{r.name}</td>
                    <td data-label="Contact">
                      {r.email}
                      {r.phone ? `, ${r.phone}` : ""}
                    </td>
                    <td data-label="Role">{r.role ?? "Any"}</td>
                    <td data-label="Interests">{r.interests}</td>
                    <td data-label="Availability">{r.availability}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ))}
      </>
    ));
  });

  await guardedScope(app, "admin", (scope) => {
    scope.get("/volunteers.csv", { schema: { hide: true } }, async (request, reply) => {
      const rows = await confirmed().orderBy("volunteers.id").limit(50_000).execute();
      await recordAudit(db(), {
        actorId: staffViewer(request).accountId,
        action: "volunteers.export",
        itemType: "volunteers",
        itemId: "csv",
        details: { rows: rows.length },
        at: civic.now(),
      });
      const header = [
        "project",
        "role",
        "name",
        "email",
        "phone",
        "interests",
        "availability",
        "consent",
        "confirmed_at",
      ];
      const lines = rows.map((r) =>
        csvRecord([
          r.project_title,
          r.role,
          r.name,
          r.email,
          r.phone,
          r.interests,
          r.availability,
          r.consent_text,
          r.confirmed_at,
        ]),
      );
      return reply
        .header("content-type", "text/csv; charset=utf-8")
        .header("content-disposition", 'attachment; filename="volunteers.csv"')
        .header("cache-control", "no-store")
        .send(`${header.join(",")}\r\n${lines.join("")}`);
    });
  });
}
