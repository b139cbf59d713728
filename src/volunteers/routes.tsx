import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { ButtonForm, ErrorSummary, Field, PostForm } from "../core/web/forms.js";
import { hashToken, newToken, TokenParams } from "../core/tokens.js";
import { normaliseEmail } from "../core/email-address.js";
import { issueLink, useLink } from "../core/links.js";
import { emailLinkPage } from "../core/web/link-page.js";
import { FormProblem, Honeypot, Select, TextArea } from "../core/web/components.js";
import { AlreadySent, oncePerForm } from "../core/http/single-use.js";
import { parseRoles } from "../projects/index.js";
import { withdrawnValues } from "./personal-data.js";
import { pageContext } from "../core/context.js";
import { AppError, type FieldProblem } from "../core/http/errors.js";
import { publicFormLimit, spamChecks, stringFields } from "../core/http/public-form.js";
import { isBanned } from "../moderation/index.js";
import { accountAddress } from "../accounts/index.js";
import { sendUnconfirmedMail } from "../core/mail/policy.js";
import { layoutMail } from "../core/mail/layout.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";

/**
 * The link in the confirmation mail (core/links.ts) confirms the sign-up, then withdraws it "at any time": any number
 * of uses while the sign-up is kept (the retention job deletes it with the sign-up).
 */
const LINK = "volunteer";
const LINK_DAYS = 10 * 366;
const DAY = 24 * 60 * 60_000;

export const CONSENT =
  "I agree that the volunteers who run this platform keep these details to contact me about volunteering, until I withdraw.";

interface Values {
  name: string;
  email: string;
  phone: string;
  interests: string;
  availability: string;
  project: string;
  role: string;
}

const formQuery = Type.Object({
  project: Type.Optional(Type.String({ maxLength: 100 })),
  role: Type.Optional(Type.String({ maxLength: 100 })),
});

/** /volunteer: sign up in general or for a project's role; the address is confirmed before staff see it. */
export async function volunteerRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;
  const projects = () =>
    db()
      .selectFrom("projects")
      .select(["id", "title", "roles"])
      .where("status", "!=", "completed")
      .orderBy("title")
      .execute();

  async function render(request: FastifyRequest, reply: FastifyReply, v: Values, problems: FieldProblem[]) {
    const ctx = pageContext(request);
    const list = await projects();
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Volunteer" description="Offer some time to a community project.">
        <h1>Volunteer</h1>
        <p class="lead">Community projects run on volunteers. Give an hour a month or an afternoon a year.</p>
        <ErrorSummary problems={problems} />
        <FormProblem problems={problems} />
        <PostForm action="/volunteer" csrfToken={ctx.csrfToken}>
          <Select
            id="project"
            label="Project and role (optional)"
            hint="Choose a project’s role, or a project with any role, or leave it open."
            value={v.role ? `${v.project}|${v.role}` : v.project}
            options={list.flatMap((p) => [
              { value: p.id, label: `${p.title}: any role` },
              ...parseRoles(p.roles).map((r) => ({ value: `${p.id}|${r}`, label: `${p.title}: ${r}` })),
            ])}
            problems={problems}
            empty="Any project"
          />
          <Field id="name" label="Your name" value={v.name} problems={problems} autocomplete="name" maxLength={100} />
          {request.viewer ? (
            <p id="email">
              You are signed in, so this sign-up is filed under your account and we write to your account’s email
              address.
            </p>
          ) : (
            <Field
              id="email"
              type="email"
              label="Email address"
              value={v.email}
              problems={problems}
              autocomplete="email"
              maxLength={254}
            />
          )}
          <Field
            id="phone"
            label="Phone (optional)"
            value={v.phone}
            problems={problems}
            autocomplete="tel"
            maxLength={40}
          />
          <TextArea
            id="interests"
            label="What would you like to help with?"
            value={v.interests}
            problems={problems}
            rows={3}
            maxLength={1000}
          />
          <TextArea
            id="availability"
            label="When are you available?"
            value={v.availability}
            problems={problems}
            rows={2}
            maxLength={500}
          />
          <p id="consent">{CONSENT}</p>
          <Honeypot />
          <button type="submit">Sign up</button>
        </PostForm>
      </Layout>,
      problems.length ? 400 : 200,
    );
  }

  app.get("/volunteer", { schema: { hide: true, querystring: formQuery } }, async (request, reply) => {
    const q = request.query;
    const [project = "", role = ""] = (q.project ?? "").split("|", 2);
    return render(
      request,
      reply,
      { name: "", email: "", phone: "", interests: "", availability: "", project, role: q.role ?? role },
      [],
    );
  });

  app.post("/volunteer", { schema: { hide: true }, config: publicFormLimit(civic) }, async (request, reply) => {
    const f = stringFields(request.body);
    const cut = (k: string, n: number) => (f[k] ?? "").slice(0, n);
    const v: Values = {
      name: cut("name", 200),
      email: cut("email", 254),
      phone: cut("phone", 60),
      interests: cut("interests", 2000),
      availability: cut("availability", 1000),
      project: cut("project", 300).split("|", 2)[0] ?? "",
      role: cut("project", 300).split("|", 2)[1] ?? "",
    };
    const { token, problems } = spamChecks(civic, f);
    // Signed in, the sign-up is the account's, under the account's own address (accounts/prefill.ts).
    const email = request.viewer ? await accountAddress(db(), request.viewer.accountId) : normaliseEmail(v.email);
    if (v.name.trim() === "" || v.name.length > 100)
      problems.push({ field: "name", message: "Enter your name (up to 100 characters)" });
    if (!email) problems.push({ field: "email", message: "Enter your email address, like name@example.com" });
    if (v.phone && !/^[+\d][\d ()-]{5,39}$/.test(v.phone))
      problems.push({ field: "phone", message: "Enter a phone number, like 01234 567890" });
    if (v.interests.trim() === "" || v.interests.length > 1000)
      problems.push({ field: "interests", message: "Say what you would like to help with" });
    if (v.availability.trim() === "" || v.availability.length > 500)
      problems.push({ field: "availability", message: "Say when you are available" });
    const project = v.project
      ? await db()
          .selectFrom("projects")
          .select(["id", "roles", "status"])
          .where("id", "=", v.project)
          .executeTakeFirst()
      : undefined;
    if (project?.status === "completed") {
      problems.push({ field: "project", message: "That project has finished: choose another from the list" });
    } else if ((v.project && !project) || (project && v.role && !parseRoles(project.roles).includes(v.role))) {
      problems.push({ field: "project", message: "Choose a project and role from the list" });
    }
    if (problems.length > 0) return render(request, reply, v, problems);
    // A banned account or address gets the usual answer, and nothing is kept or mailed (moderation/ban-list.ts).
    const banned = await isBanned(db(), { accountId: request.viewer?.accountId ?? null, addresses: [email] });
    const now = civic.now();
    const ctx = pageContext(request);
    const done = await oncePerForm(civic, token, "volunteer", (record) =>
      db()
        .transaction()
        .execute(async (tx) => {
          await record(tx, "sent");
          if (banned) return;
          const row = await tx
            .insertInto("volunteers")
            .values({
              project_id: project?.id ?? null,
              role: v.role.trim() || null,
              name: v.name.trim(),
              email: email!,
              phone: v.phone.trim() || null,
              interests: v.interests.trim(),
              availability: v.availability.trim(),
              consent_text: CONSENT,
              status: "unconfirmed",
              // Not a link's: links are kept by core/links.ts. A random value (the column is unique, not null).
              token_hash: hashToken(newToken()),
              account_id: request.viewer?.accountId ?? null,
              created_at: now.toISOString(),
              confirmed_at: null,
              withdrawn_at: null,
            })
            .returning("id")
            .executeTakeFirstOrThrow();
          const confirmToken = await issueLink(
            tx,
            {
              purpose: LINK,
              email: email!,
              // Erasing the account that made the sign-up erases the sign-up, and its link with it.
              accountId: request.viewer?.accountId ?? null,
              ref: row.id,
              expiresAt: new Date(now.getTime() + LINK_DAYS * DAY),
              maxUses: null,
            },
            now,
          );
          await sendUnconfirmedMail(
            tx,
            { secret: civic.config.sessionSecret, now },
            layoutMail(
              civic.site,
              {
                kind: "volunteer-confirm",
                to: email!,
                subject: `Confirm your volunteering sign-up in ${civic.site.villageName}`,
              },
              {
                heading: "Confirm your volunteering sign-up",
                body: [],
                action: {
                  lead: "Thank you for offering to volunteer. To confirm your sign-up, open this link and press the button:",
                  label: "Confirm your sign-up",
                  url: `${civic.site.baseUrl}/volunteer/confirm/${confirmToken}`,
                },
                after: ["Keep this message: the same link lets you withdraw at any time."],
                footer: {
                  why: "You get this message because this address was given in the volunteering form on our site.",
                  stop: "To stop, open the link above and withdraw your sign-up.",
                },
              },
            ),
          );
        }),
    );
    if ("earlier" in done) {
      return sendPage(
        reply,
        <Layout ctx={ctx} title="Already sent">
          <AlreadySent what="sign-up">
            <p>Check your email for the link that confirms it.</p>
          </AlreadySent>
        </Layout>,
      );
    }
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Check your email">
        <h1>Check your email</h1>
        <p class="lead">We have sent you a link. Open it and press “Confirm” to complete your sign-up.</p>
      </Layout>,
    );
  });

  /** The sign-up a link names, for its buttons (counts a use of the link). */
  async function byToken(token: string) {
    const link = await useLink(db(), LINK, token, civic.now());
    if (!link || link.ref === null) return undefined;
    return db().selectFrom("volunteers").selectAll().where("id", "=", Number(link.ref)).executeTakeFirst();
  }

  emailLinkPage(app, {
    path: "/volunteer/confirm",
    purpose: LINK,
    title: "Your volunteering sign-up",
    gone: "This link is not valid any more.",
    askAgain: { href: "/volunteer", label: "Sign up to volunteer" },
    async body(link, { token, csrfToken }) {
      const row =
        link.ref === null
          ? undefined
          : await db().selectFrom("volunteers").select("status").where("id", "=", Number(link.ref)).executeTakeFirst();
      if (!row) return null;
      return (
        <>
          {row.status === "unconfirmed" ? (
            <>
              <p>Press “Confirm” to confirm your sign-up.</p>
              <ButtonForm action={`/volunteer/confirm/${token}`} csrfToken={csrfToken} label="Confirm" />
            </>
          ) : null}
          {row.status === "confirmed" ? <p>Your sign-up is confirmed. Thank you.</p> : null}
          {row.status === "withdrawn" ? (
            <p>You have withdrawn; we no longer hold your details.</p>
          ) : (
            <ButtonForm
              action={`/volunteer/withdraw/${token}`}
              csrfToken={csrfToken}
              label="Withdraw my sign-up"
              secondary
            />
          )}
        </>
      );
    },
  });

  app.post("/volunteer/confirm/:token", { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const row = await byToken(token);
    if (!row) throw new AppError("gone", "This link is not valid any more.");
    await db()
      .updateTable("volunteers")
      .set({ status: "confirmed", confirmed_at: civic.now().toISOString() })
      .where("id", "=", row.id)
      .where("status", "=", "unconfirmed")
      .execute();
    return reply.redirect(`/volunteer/confirm/${token}`, 303);
  });

  app.post("/volunteer/withdraw/:token", { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const row = await byToken(token);
    if (!row) throw new AppError("gone", "This link is not valid any more.");
    await withdraw(row.id, civic.now());
    return reply.redirect(`/volunteer/confirm/${token}`, 303);
  });

  async function withdraw(id: number, now: Date) {
    await db().updateTable("volunteers").set(withdrawnValues(now)).where("id", "=", id).execute();
  }
}
