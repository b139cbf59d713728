import { Prose } from "../community/components.js";
import { markdownToHtml } from "../community/markdown.js";

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });

export function issueDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

/** An issue as the archive and the staff preview show it. */
export function IssueArticle({ issue }: { issue: { title: string; body: string; sent_at: string | null } }) {
  return (
    <article>
      <h1>{issue.title}</h1>
      {issue.sent_at ? (
        <p>
          Sent <time dateTime={issue.sent_at}>{issueDate(issue.sent_at)}</time>
        </p>
      ) : null}
      <Prose html={markdownToHtml(issue.body)} />
    </article>
  );
}
