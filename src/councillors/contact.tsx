import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { ErrorSummary, Field, PostForm } from "../core/web/forms.js";
import { mailboxKey, normaliseEmail } from "../core/email-address.js";
import { FormProblem, Checkbox, Honeypot, TextArea } from "../core/web/components.js";
import { pageContext } from "../core/context.js";
import type { Councillor } from "../core/db/schema.js";
import { notFound, type FieldProblem } from "../core/http/errors.js";
import { AlreadySent, alreadySubmitted, oncePerForm } from "../core/http/single-use.js";
import { publicFormLimit, spamChecks, stringFields } from "../core/http/public-form.js";
import { enqueueMail } from "../core/mail/outbox.js";
import { isBanned } from "../moderation/index.js";
import { sendUnconfirmedMail } from "../core/mail/policy.js";
import { layoutMail } from "../core/mail/layout.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";

/** The form's name for its single-use record. */
const FORM = "councillor-contact";
const PER_EMAIL = { name: "councillor-contact-email", max: 5, windowMs: 60 * 60_000 };
const idParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

interface ContactValues {
  name: string;
  email: string;
  message: string;
  share: boolean;
}

/** A message that arrives again after it went: nothing is sent twice. */
function alreadySent(request: FastifyRequest, reply: FastifyReply, c: Councillor) {
  return sendPage(
    reply,
    <Layout ctx={pageContext(request)} title="Already sent">
      <AlreadySent what="message">
        <p>
          Your message to {c.name} went once. <a href={`/councillors/${c.id}`}>Back to {c.name}’s page</a>.
        </p>
      </AlreadySent>
    </Layout>,
  );
}

/** The councillor's page (ward, role, surgery, how to reach them) and a contact form sent through the outbox. */
export async function councillorContactRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { civic } = app;
  const db = () => civic.database.db;
  const limiter = civic.limits;

  async function load(id: string) {
    const c = await db().selectFrom("councillors").selectAll().where("id", "=", id).executeTakeFirst();
    if (!c) throw notFound("There is no councillor at this address.");
    return c;
  }

  function render(
    request: FastifyRequest,
    reply: FastifyReply,
    c: Councillor,
    v: ContactValues,
    problems: FieldProblem[],
    sent = false,
  ) {
    const ctx = pageContext(request);
    const responsibilities = JSON.parse(c.responsibilities) as string[];
    return sendPage(
      reply,
      <Layout ctx={ctx} title={c.name} description={`${c.role}, ${c.ward}`}>
        <p>
          <a href="/councillors">All councillors</a>
        </p>
        <h1>{c.name}</h1>
        <dl>
          <dt>Role</dt>
          <dd>{c.role}</dd>
          <dt>Ward</dt>
          <dd>{c.ward}</dd>
          <dt>Email</dt>
          <dd>
            <a href={`mailto:${c.email}`}>{c.email}</a>
          </dd>
          {c.phone ? (
            <>
              <dt>Phone</dt>
              <dd>{c.phone}</dd>
            </>
          ) : null}
          {c.surgery ? (
            <>
              <dt>Surgery</dt>
              <dd>{c.surgery}</dd>
            </>
          ) : null}
          {responsibilities.length ? (
            <>
              <dt>Responsibilities</dt>
              <dd>{responsibilities.join(", ")}</dd>
            </>
          ) : null}
        </dl>
        <h2 id="contact">Send {c.name} a message</h2>
        {sent ? (
          <p role="status" class="notice notice-success">
            Your message has been sent. We have emailed you a copy.
          </p>
        ) : (
          <>
            <ErrorSummary problems={problems} />
            <FormProblem problems={problems} />
            <PostForm action={`/councillors/${c.id}/contact`} csrfToken={ctx.csrfToken}>
              <Field
                id="name"
                label="Your name"
                value={v.name}
                problems={problems}
                autocomplete="name"
                maxLength={100}
              />
              <Field
                id="email"
                type="email"
                label="Your email address"
                hint="We let you know by email that your message was sent."
                value={v.email}
                problems={problems}
                autocomplete="email"
                maxLength={254}
              />
              <TextArea id="message" label="Your message" value={v.message} problems={problems} maxLength={5000} />
              <Checkbox
                id="share"
                label={`${c.name} may see my email address to reply to me`}
                checked={v.share}
                problems={problems}
                hint="Without it, the councillor gets your message and name but not your address."
              />
              <Honeypot />
              <button type="submit">Send message</button>
            </PostForm>
          </>
        )}
      </Layout>,
      problems.length ? 400 : 200,
    );
  }

  app.get("/councillors/:id", { schema: { hide: true, params: idParams } }, async (request, reply) => {
    const c = await load(request.params.id);
    return render(request, reply, c, { name: "", email: "", message: "", share: false }, []);
  });

  app.post(
    "/councillors/:id/contact",
    { schema: { hide: true, params: idParams }, config: publicFormLimit(civic) },
    async (request, reply) => {
      const c = await load(request.params.id);
      const f = stringFields(request.body);
      const v = {
        name: (f.name ?? "").slice(0, 200),
        email: (f.email ?? "").slice(0, 254),
        message: (f.message ?? "").slice(0, 6000),
        share: f.share === "yes",
      };
      const { token, problems } = spamChecks(civic, f);
      const email = normaliseEmail(v.email);
      if (v.name.trim() === "" || v.name.length > 100)
        problems.push({ field: "name", message: "Enter your name (up to 100 characters)" });
      if (!email) problems.push({ field: "email", message: "Enter your email address, like name@example.com" });
      if (v.message.trim().length < 10 || v.message.length > 5000) {
        problems.push({ field: "message", message: "Write your message (10 to 5,000 characters)" });
      }
      // A replay of a message that went is told so, before it could count against the address's hourly limit.
      if (problems.length === 0 && (await alreadySubmitted(civic, token, FORM)) !== undefined) {
        return alreadySent(request, reply, c);
      }
      if (problems.length === 0 && !(await limiter.hit(PER_EMAIL, mailboxKey(email!))).allowed) {
        reply.header("retry-after", "3600");
        problems.push({
          field: "form",
          message: "You have sent several messages already. Please try again in an hour.",
        });
      }
      if (problems.length > 0) return render(request, reply, c, v, problems);
      const now = civic.now();
      // A banned account or address gets the usual answer; nothing is sent (moderation/ban-list.ts).
      const banned = await isBanned(db(), { accountId: request.viewer?.accountId ?? null, addresses: [email] });
      const done = await oncePerForm(civic, token, FORM, (record) =>
        db()
          .transaction()
          .execute(async (tx) => {
            await record(tx, c.id);
            if (banned) return;
            await enqueueMail(
              tx,
              layoutMail(
                civic.site,
                {
                  kind: "councillor-contact",
                  to: c.email,
                  subject: `A message from a resident of ${civic.site.villageName}`,
                  about: email!,
                },
                {
                  heading: "A message from a resident",
                  body: [
                    `Message from ${v.name.trim()}, a resident, sent through the ${civic.site.villageName} community platform:`,
                    { quote: v.message.trim() },
                    v.share
                      ? `They are happy for you to reply to: ${email}`
                      : "They did not share their email address with you.",
                  ],
                  footer: {
                    why:
                      `You get this message because you are listed as a councillor on the ${civic.site.villageName} ` +
                      `Community Platform.`,
                    stop: `To change or remove your listing, write to ${civic.site.contactEmail}.`,
                  },
                },
              ),
              now,
            );
            // Nobody has confirmed this address: a neutral notice, never the visitor's text (core/mail/policy.ts).
            await sendUnconfirmedMail(
              tx,
              { secret: civic.config.sessionSecret, now },
              layoutMail(
                civic.site,
                { kind: "councillor-contact-copy", to: email!, subject: `Your message to ${c.name}` },
                {
                  heading: `Your message to ${c.name}`,
                  body: [
                    `Your message to ${c.name}, councillor, was sent through the ${civic.site.villageName} community platform.`,
                    v.share
                      ? "You allowed them to see your email address, so they can reply to you."
                      : "Your email address was not shared with them.",
                    "If it was not you, someone typed your address into the contact form: you need do nothing, and we will not write again about it.",
                  ],
                  footer: {
                    why: "You get this message because this address was typed into a councillor's contact form on our site.",
                  },
                },
              ),
            );
          }),
      );
      if ("earlier" in done) return alreadySent(request, reply, c);
      return render(request, reply, c, v, [], true);
    },
  );
}
