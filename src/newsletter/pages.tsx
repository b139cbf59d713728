import { Prose } from "../core/web/components.js";
import { markdownToHtml } from "../core/web/markdown.js";

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });

export function issueDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

/**
 * An issue as the archive and the staff preview show it. On its own page the title is the `<h1>`; inside a staff
 * page (under that page's own h1, or an h2 "Preview") it is a lower heading, and the body's headings follow it.
 */
export function IssueArticle({
  issue,
  level = 1,
}: {
  issue: { title: string; body: string; sent_at: string | null };
  level?: 1 | 2 | 3;
}) {
  const Heading = `h${level}` as "h1" | "h2" | "h3";
  return (
    <article>
      <Heading>{issue.title}</Heading>
      {issue.sent_at ? (
        <p>
          Sent <time dateTime={issue.sent_at}>{issueDate(issue.sent_at)}</time>
        </p>
      ) : null}
      <Prose html={markdownToHtml(issue.body, { headingOffset: level })} />
    </article>
  );
}
