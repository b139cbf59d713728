import type { ComponentChildren } from "preact";
import type { ContentProps } from "../../core/site.js";

/** The 404 page; `more`: the features' items of its "What you can do next" list (their manifests' `notFound`). */
export function NotFoundContent({ site, more }: ContentProps & { more: ComponentChildren }) {
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
        {more}
      </ul>
      <p>
        If you followed a link on this site and it brought you here, please let us know at{" "}
        <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a> so we can fix it.
      </p>
    </>
  );
}
