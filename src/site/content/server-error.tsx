import type { ContentProps } from "../../core/site.js";

export type ServerErrorContentProps = ContentProps & { requestId?: string };

export function ServerErrorContent({ site, requestId }: ServerErrorContentProps) {
  return (
    <>
      <h1>Sorry, something went wrong</h1>
      <p>There is a problem with the {site.villageName} community platform. It is not your fault.</p>
      <p>Please try again in a few minutes.</p>
      <p>
        If you were filling in a form, it may not have been sent. Your browser may still have what you typed. Use your
        browser's back button to check it before you try again. If you made a report and have its reference, you can{" "}
        <a href="/status">check your report's status</a> to see if it arrived.
      </p>
      {requestId ? (
        <p>
          Reference for this error: <code>{requestId}</code>. If you contact us, please quote this reference. It helps
          the volunteers find out what went wrong.
        </p>
      ) : null}
      <p>
        If the problem keeps happening, email us at <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>.
      </p>
      <p>
        If someone is in danger, do not wait for this site. Call <strong>999</strong> (or <strong>112</strong>).
      </p>
    </>
  );
}
