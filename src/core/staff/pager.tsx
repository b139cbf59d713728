/** Links to the previous and next page of a staff list. */
export function Pager({
  label,
  page,
  pages,
  href,
  previous = "Previous page",
  next = "Next page",
}: {
  label: string;
  page: number;
  pages: number;
  href: (page: number) => string;
  previous?: string;
  next?: string;
}) {
  if (pages <= 1) return null;
  return (
    <nav aria-label={label} class="pagination">
      <ul>
        {page > 1 ? (
          <li>
            <a href={href(page - 1)} rel="prev">
              {previous}
            </a>
          </li>
        ) : null}
        {page < pages ? (
          <li>
            <a href={href(page + 1)} rel="next">
              {next}
            </a>
          </li>
        ) : null}
      </ul>
    </nav>
  );
}

/** The URL of page `n` of a staff list with the same filters (`query` is the parsed query string). */
export function pageHref(path: string, query: Record<string, unknown>, n: number): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (k !== "page" && v) params.set(k, String(v));
  if (n > 1) params.set("page", String(n));
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}
