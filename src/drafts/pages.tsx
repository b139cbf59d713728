/** The drafts page: a shell the drafts script fills from this device's storage. Without JavaScript there are none. */
export function DraftsPage() {
  return (
    <>
      <h1>Reports saved on this device</h1>
      <p>
        Reports you send while you are offline are saved here, on this device only, and sent automatically when you are
        back online. Nobody else can see them until they have been sent.
      </p>
      <p>
        A saved report belongs to the session it was saved in: it is shown and sent only while the same account is
        signed in here, or while nobody is if it was saved without signing in (signing in does not take it into your
        account). Signing out deletes your account's unsent reports from this device, and erasing your data deletes
        every report saved on it; you are asked first.
      </p>
      <div id="draft-notice" role="status" aria-live="polite"></div>
      <div id="drafts-hidden"></div>
      <div id="drafts" data-drafts>
        <noscript>
          <p>Saving reports on this device needs JavaScript. Without it, reports are sent straight away.</p>
        </noscript>
        <p class="drafts-empty">There are no reports saved on this device.</p>
      </div>
      <h2>Reports that have arrived</h2>
      <div id="drafts-arrived">
        <p>None yet from this device.</p>
      </div>
      <p>
        <a href="/report">Report an issue</a>
      </p>
    </>
  );
}

/** What the service worker shows for a page that is not saved on this device while there is no connection. */
export function OfflinePage() {
  return (
    <>
      <h1>You are offline</h1>
      <p>This page is not saved on this device, and there is no internet connection at the moment.</p>
      <p>You can still report an issue: it is saved on this device and sent automatically when you are back online.</p>
      <ul>
        <li>
          <a href="/report">Report an issue</a>
        </li>
        <li>
          <a href="/report/drafts">Reports saved on this device</a>
        </li>
        <li>
          <a href="/">Home page</a>
        </li>
      </ul>
    </>
  );
}
