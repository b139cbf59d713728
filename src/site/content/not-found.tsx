import type { ContentProps } from "../../core/site.js";
import { PlaceBox } from "../../reports/index.js";

export function NotFoundContent({ site }: ContentProps) {
  return (
    <>
      <h1>Page not found</h1>
      <p>Sorry, we could not find the page you asked for.</p>
      <p>If you typed the web address, check it is correct.</p>
      <p>If you pasted the web address, check you copied the whole address.</p>

      <h2>What you can do next</h2>
      <ul>
        <li>
          <a href="/">Go to the {site.villageName} community platform home page</a>
        </li>
        <li>
          <a href="/reports">Browse reports</a>, or find them by a street, a place or words:
          <form method="get" action="/reports" class="place-search">
            <PlaceBox id="place-search" names={[]} />
            <button type="submit">Find reports</button>
          </form>
        </li>
        <li>
          <a href="/status">Check a report's status using its reference</a>
        </li>
      </ul>
      <p>
        If you followed a link on this site and it brought you here, please let us know at{" "}
        <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a> so we can fix it.
      </p>
    </>
  );
}
