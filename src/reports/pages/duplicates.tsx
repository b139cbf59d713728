import { isPublic } from "../../core/visibility.js";
import type { DuplicateLinks, LinkedReport } from "../duplicates.js";

function Linked({ r, href }: { r: LinkedReport; href: (reference: string) => string }) {
  return (
    <>
      <a href={href(r.reference)}>
        {r.reference}: {r.title}
      </a>
      {!isPublic(r.visibility) ? <strong> ({r.visibility})</strong> : null}
    </>
  );
}

/** "Duplicate of …" and "Duplicates of this report" on the public page and the staff view. */
export function DuplicateLinksView({
  links,
  href = (reference) => `/reports/${reference}`,
}: {
  links: DuplicateLinks;
  href?: (reference: string) => string;
}) {
  if (!links.original && links.duplicates.length === 0) return null;
  return (
    <section class="duplicate-links" aria-label="Related reports">
      {links.original ? (
        <p>
          This report is a duplicate of <Linked r={links.original} href={href} />.
        </p>
      ) : null}
      {links.duplicates.length > 0 ? (
        <>
          <p>Reports marked as duplicates of this one:</p>
          <ul>
            {links.duplicates.map((d) => (
              <li key={d.reference}>
                <Linked r={d} href={href} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
