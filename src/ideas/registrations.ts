import { subjectAddresses } from "../accounts/index.js";
import { parseId } from "../core/http/ids.js";
import { eraseMailAbout } from "../core/mail/erase.js";
import type { ModeratedKind } from "../core/moderation.js";
import type { PersonalDataSource } from "../core/personal-data.js";

/** Ideas can be flagged ("Report this") and hidden or removed by moderators, like reports. */
export const ideaKind: ModeratedKind = {
  kind: "idea",
  noun: "idea",
  async load({ db }, id) {
    const n = parseId(id);
    if (n === null) return null;
    const idea = await db.selectFrom("ideas").selectAll().where("id", "=", n).executeTakeFirst();
    if (!idea || idea.status === "unconfirmed") return null;
    return {
      kind: "idea",
      id,
      label: `Idea ${idea.id}: ${idea.title}`,
      excerpt: idea.description.slice(0, 500),
      state: idea.visibility,
      publicPath: `/ideas/${idea.id}`,
      staffPath: `/admin/ideas/${idea.id}`,
      authorAccountId: idea.account_id,
      authorEmail: idea.email,
      subjectRef: `idea ${idea.id}`,
    };
  },
  async setState({ db, now }, id, state) {
    await db
      .updateTable("ideas")
      .set({ visibility: state, updated_at: now.toISOString() })
      .where("id", "=", parseId(id) ?? 0)
      .execute();
  },
  async itemsOf({ db }, accountId) {
    const rows = await db.selectFrom("ideas").select("id").where("account_id", "=", accountId).execute();
    return rows.map((r) => String(r.id));
  },
};

/**
 * An idea's proposer (by account or confirmed address) and their supports. Erasure keeps public ideas (their text is
 * public content) but unlinks them from the person, unless they ask for their public content to go too.
 */
export const ideaData: PersonalDataSource = {
  key: "ideas",
  tables: ["ideas", "idea_supports", "outbox"],
  async collect({ db }, subject) {
    const ideas = await db
      .selectFrom("ideas")
      .select(["id", "title", "description", "status", "created_at", "published_at"])
      .where((eb) =>
        subject.accountId
          ? eb.or([eb("account_id", "=", subject.accountId), eb("email", "in", subjectAddresses(subject))])
          : eb("email", "in", subjectAddresses(subject)),
      )
      .execute();
    const supports = subject.accountId
      ? await db
          .selectFrom("idea_supports")
          .select(["idea_id", "created_at"])
          .where("account_id", "=", subject.accountId)
          .execute()
      : [];
    return { data: { ideas, supports } };
  },
  async erase({ db, now }, subject, options) {
    const mine = (q: ReturnType<typeof db.updateTable<"ideas">>) =>
      q.where((eb) =>
        subject.accountId
          ? eb.or([eb("account_id", "=", subject.accountId), eb("email", "in", subjectAddresses(subject))])
          : eb("email", "in", subjectAddresses(subject)),
      );
    const own = await db
      .selectFrom("ideas")
      .select(["id", "email", "status"])
      .where((eb) =>
        subject.accountId
          ? eb.or([eb("account_id", "=", subject.accountId), eb("email", "in", subjectAddresses(subject))])
          : eb("email", "in", subjectAddresses(subject)),
      )
      .limit(100_000)
      .execute();
    // The confirmation mail of an idea under an address not (yet) proved theirs goes with it, and an idea never
    // confirmed was never public: it goes whole.
    await eraseMailAbout(
      db,
      own.flatMap((i) => (i.email ? [i.email] : [])),
      ["idea-confirm"],
    );
    const unconfirmed = own.filter((i) => i.status === "unconfirmed").map((i) => i.id);
    if (unconfirmed.length > 0) await db.deleteFrom("ideas").where("id", "in", unconfirmed).execute();
    if (options.removePublicContent) {
      await mine(db.updateTable("ideas")).set({ visibility: "removed", updated_at: now.toISOString() }).execute();
    }
    await mine(db.updateTable("ideas")).set({ account_id: null, email: null }).execute();
    if (subject.accountId) {
      const supported = await db
        .selectFrom("idea_supports")
        .select("idea_id")
        .where("account_id", "=", subject.accountId)
        .execute();
      for (const s of supported) {
        await db
          .updateTable("ideas")
          .set((eb) => ({ supports: eb("supports", "-", 1) }))
          .where("id", "=", s.idea_id)
          .execute();
      }
      await db.deleteFrom("idea_supports").where("account_id", "=", subject.accountId).execute();
    }
  },
};
