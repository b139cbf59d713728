import { RETENTION } from "../../core/jobs/retention.js";
import { UNCONFIRMED_MAIL_CAPS } from "../../core/mail/policy.js";
import type { ContentProps } from "../../core/site.js";

/** Where the maps' images come from: this site (the tile proxy, src/maps) or the tile server itself. */
export interface MapTilesSource {
  proxied: boolean;
  /** The tile server's host name. */
  server: string;
}

export function PrivacyContent({ site, mapTiles }: ContentProps & { mapTiles?: MapTilesSource }) {
  const mail = <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>;
  return (
    <>
      <h1>Privacy notice</h1>
      <p>
        <strong>Last updated: 29 November 2026</strong>
      </p>
      <p>
        This notice explains what personal data the {site.villageName} community platform collects, why we collect it,
        how long we keep it and what your rights are. We collect as little as we can.
      </p>

      <h2>Who we are</h2>
      <p>
        The platform is run by a group of volunteers in {site.villageName}. We are the "controller" of your personal
        data. This means we decide how it is used and we are responsible for looking after it.
      </p>
      <p>We are an independent community project. We are not part of {site.councilName}.</p>
      <p>You can contact us about your data at {mail}.</p>

      <h2>What we store and why</h2>
      <table class="stacked">
        <caption>The information we store, why we use it and who can see it</caption>
        <thead>
          <tr>
            <th scope="col">Information</th>
            <th scope="col">Why we use it</th>
            <th scope="col">Who can see it</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td data-label="Information">Reports: title, description, category and location</td>
            <td data-label="Why we use it">To record the problem and help get it fixed.</td>
            <td data-label="Who can see it">Everyone. This is public content.</td>
          </tr>
          <tr>
            <td data-label="Information">Your email address, and your name if you give it</td>
            <td data-label="Why we use it">
              To confirm your report, send you updates about it, and ask you once a while later whether it was fixed
              (your answer is published on the report without your name or address).
            </td>
            <td data-label="Who can see it">
              Our volunteers. It is never published. It goes to the council with your report only if you ticked that the
              council may contact you.
            </td>
          </tr>
          <tr>
            <td data-label="Information">Photos you add to a report</td>
            <td data-label="Why we use it">To show the problem clearly.</td>
            <td data-label="Who can see it">
              Everyone. We automatically remove location data (<abbr title="Exchangeable Image File Format">EXIF</abbr>{" "}
              and <abbr title="Global Positioning System">GPS</abbr> data) from photos before they are stored.
            </td>
          </tr>
          <tr>
            <td data-label="Information">Account details, if you create an account</td>
            <td data-label="Why we use it">To let you sign in and see your reports in one place.</td>
            <td data-label="Who can see it">You and our volunteers.</td>
          </tr>
          <tr>
            <td data-label="Information">
              Updates you add to a report: the text, its photo if you add one (without the location and camera details
              stored inside it), and your account or the email address you confirmed it with
            </td>
            <td data-label="Why we use it">
              To publish the update on the report, tell its reporter and followers, and let the moderators deal with
              misuse.
            </td>
            <td data-label="Who can see it">
              Everyone sees the text, the photo and the date, marked “Update from a resident” or “from the reporter”;
              your name and address are never shown.
            </td>
          </tr>
          <tr>
            <td data-label="Information">Volunteer sign-ups</td>
            <td data-label="Why we use it">To put you in touch with the project or role you signed up for.</td>
            <td data-label="Who can see it">Our volunteers and the organisers of that project.</td>
          </tr>
          <tr>
            <td data-label="Information">Newsletter subscription: your email address</td>
            <td data-label="Why we use it">To send you the newsletter.</td>
            <td data-label="Who can see it">Our volunteers.</td>
          </tr>
          <tr>
            <td data-label="Information">
              Alerts for new reports: your email address, the place, street or category you chose and how often
            </td>
            <td data-label="Why we use it">
              To email you about new public reports that match, until you stop the alert.
            </td>
            <td data-label="Who can see it">Our volunteers. It is never published.</td>
          </tr>
          <tr>
            <td data-label="Information">
              “Report this” flags: the reason, your note, your account if you were signed in, and a scrambled (keyed
              hash) form of your internet address that is different for every item and never the address itself
            </td>
            <td data-label="Why we use it">
              So the moderators can look at the item, and so one person cannot hide it alone: only people signed in with
              accounts at least a week old, one per internet address, can together hide an item until a moderator has
              looked at it.
            </td>
            <td data-label="Who can see it">Our moderators. We never tell anyone who reported an item.</td>
          </tr>
          <tr>
            <td data-label="Information">
              Server logs, including <abbr title="Internet Protocol">IP</abbr> addresses
            </td>
            <td data-label="Why we use it">
              To keep the site secure and to stop misuse, for example by limiting how many requests one address can
              make. We never write email addresses, or the secret part of a link we emailed you, to our logs.
            </td>
            <td data-label="Who can see it">Only the volunteers who look after the server.</td>
          </tr>
        </tbody>
      </table>

      <h2>Our lawful basis</h2>
      <p>Data protection law says we must have a valid reason, called a lawful basis, to use your data.</p>
      <ul>
        <li>
          <strong>Legitimate interests:</strong> to run the platform, publish reports, send you updates about your own
          report, manage accounts and keep the site secure. We only use your data in ways you would reasonably expect.
        </li>
        <li>
          <strong>Consent:</strong> to share your contact details with the council, to send you the newsletter and to
          pass on your volunteer sign-up. You can withdraw your consent at any time.
        </li>
      </ul>

      <h2>No tracking and no adverts</h2>
      <ul>
        <li>
          Our visitor statistics do not use cookies and collect no personal data. They only count things like how many
          times a page is viewed, which site linked to us and whether it was a phone, tablet or computer. To count
          visitors per day we keep a scrambled code (made with a random key that changes every day and is deleted after
          two days) only until the end of that day; after that only the number is kept. See the{" "}
          <a href="/stats">report statistics</a>.
        </li>
        <li>We use no tracking cookies.</li>
        <li>We have no advertising and no advertising scripts.</li>
        <li>We load no scripts from other companies.</li>
      </ul>
      <h3>Map images</h3>
      {mapTiles?.proxied === false ? (
        <p>
          When you view a map, your browser fetches the map images, called tiles, from a separate map tile server (
          {mapTiles.server}). Like any website you visit, that server can see your IP address. It does not receive your
          name, your email address or anything you write in a report.
        </p>
      ) : (
        <p>
          The map images, called tiles, come from this website. Our server fetches them from a map tile server
          {mapTiles ? ` (${mapTiles.server})` : ""} and keeps them for a week, so that server only ever sees our server:
          it never receives your IP address, your name, your email address or anything you write in a report.
        </p>
      )}
      <p>
        You do not have to use the map. You can give a location by choosing a street or landmark, or by typing a
        description.
      </p>

      <h2>Who we share your data with</h2>
      <p>
        <strong>We never sell, rent or share your personal data with third parties.</strong>
      </p>
      <p>
        A report is forwarded to the department of {site.councilName} responsible for its category, by email or through
        the council’s Open311 service (a standard way for council systems to receive reports). We send what they need to
        deal with it: the report’s title, description, category, location, your answers to the category’s questions and
        links to its public photos. Your name, email address and phone number go with it only when you ticked that the
        council may contact you about the report.
      </p>

      <h2>Emails to an address that has not been confirmed</h2>
      <p>
        Anyone can type an email address into our forms, so we limit what we send to an address until its owner has used
        one of our links. Confirmation emails (for a report, an idea, a volunteer sign-up, the newsletter, updates on a
        report or a message to a councillor) are limited to {UNCONFIRMED_MAIL_CAPS.confirmation.perHour} an hour and{" "}
        {UNCONFIRMED_MAIL_CAPS.confirmation.perDay} a day for one mailbox, however the address is written (capital
        letters and “+” tags count as the same address). Sign-in and personal-data links are limited to{" "}
        {UNCONFIRMED_MAIL_CAPS.challengePerClient.perHour} an hour and {UNCONFIRMED_MAIL_CAPS.challengePerClient.perDay}{" "}
        a day when asked from one place, and {UNCONFIRMED_MAIL_CAPS.challenge.perHour} an hour and{" "}
        {UNCONFIRMED_MAIL_CAPS.challenge.perDay} a day in all. Beyond that we send nothing, but what you sent is still
        received, and the latest sign-in link already sent keeps working. These emails contain only our own words and
        links, never the text someone typed into the form. To count, we keep only a keyed hash of the address, for at
        most a day.
      </p>

      <h2>How long we keep your data</h2>
      <ul>
        <li>
          <strong>Reports and photos</strong> stay public as a record of problems in the village. You can ask us to
          remove a report you made.
        </li>
        <li>
          <strong>Your email address, name and phone number on a report</strong> are kept while we may need to send you
          updates about it. We delete them {RETENTION.contactAfterFinishedDays} days (about six months) after the report
          is finished (fixed, closed, a duplicate or not the council's responsibility), or sooner if you ask us to. The
          report itself stays public without them.
        </li>
        <li>
          <strong>Emails we send you</strong>, and our copy of the address they went to, are deleted{" "}
          {RETENTION.sentMailDays} days after they were delivered. An email that could not be delivered is deleted{" "}
          {RETENTION.unsentMailDays} days after it was written.
        </li>
        <li>
          <strong>Photos you added to a report form that you did not send</strong> are deleted after one day.
        </li>
        <li>
          <strong>Account details</strong> are kept until you close your account or ask us to delete them.
        </li>
        <li>
          <strong>Volunteer sign-ups</strong> are kept until you tell us you no longer want to volunteer. After that we
          delete the sign-up, address and all, {RETENTION.stoppedDays} days later.
        </li>
        <li>
          <strong>Newsletter subscriptions</strong> are kept until you unsubscribe. We delete your address{" "}
          {RETENTION.stoppedDays} days after you unsubscribe; we do not need to keep it to stop the newsletter.
        </li>
        <li>
          <strong>Alerts for new reports</strong> are kept until you stop them (with the link in every alert email, or
          from your data page); stopping one deletes it at once. The record of which reports an alert has already
          emailed you is deleted after 7 days.
        </li>
        <li>
          <strong>“I have seen this too”</strong>: when you say so signed in or with an email address you confirm, we
          keep that your account or address said so until you erase your data; otherwise we keep only a coded value made
          from your connection's address and the day, from which the address cannot be read back. Nobody is shown who
          said so, only how many.
        </li>
        <li>
          <strong>
            Ideas, updates on reports, volunteer sign-ups, newsletter subscriptions, report follows and alerts you never
            confirmed
          </strong>{" "}
          (by the link we emailed) are deleted {RETENTION.unconfirmedDays} days after you sent them.
        </li>
        <li>
          <strong>IP addresses in server logs</strong> are kept for 14 days at most.
        </li>
      </ul>
      <p>A job on the server checks every hour and deletes what has reached the end of its time.</p>
      <p>
        <strong>When you erase your data</strong>, we find it by your account and by every email address you have proved
        is yours for your account (your account's address and earlier ones), and we delete it at once, including any
        email still waiting to be sent to you or about you (such as a message to a councillor). It is also wiped from
        the database files on our server's disk, not only hidden. Copies of the database that we made before your
        erasure, to recover from a failure, still hold it: we keep those backups for {RETENTION.backupDays} days, so
        after {RETENTION.backupDays} days no copy of what you erased is left. We use backups only to restore the
        service.
      </p>

      <h2>Your rights</h2>
      <p>You have the right to:</p>
      <ul>
        <li>ask for a copy of the personal data we hold about you;</li>
        <li>ask us to correct data that is wrong;</li>
        <li>ask us to delete your data;</li>
        <li>withdraw your consent at any time, where we rely on consent;</li>
        <li>object to how we use your data, where we rely on legitimate interests;</li>
        <li>complain to the Information Commissioner's Office.</li>
      </ul>

      <h3>How to use your rights</h3>
      <p>
        Email us at {mail}. Tell us what you would like us to do. We may need to check that the data is yours before we
        act. We will answer within one month. It is free.
      </p>

      <h3>How to complain</h3>
      <p>
        If you are unhappy with how we have used your data, please tell us first, so we can try to put it right. You can
        also complain to the <abbr title="Information Commissioner's Office">ICO</abbr>, the UK's data protection
        regulator: <a href="https://ico.org.uk/make-a-complaint/">make a complaint to the ICO</a>.
      </p>

      <h2>Cookies</h2>
      <p>
        Visitors who are not signed in get no cookies at all. When you sign in, we set one cookie, called{" "}
        <code>session</code>, and nothing else. It holds a random key that keeps you signed in; we store only a
        scrambled (hashed) form of it, with the kind of device (such as “Phone · Firefox”) and when it was last used, so
        you can see and end your sessions on your account page. It is sent only to this site, cannot be read by scripts,
        and lasts 30 days after you last used the site, or until you sign out. It is strictly necessary for signing in,
        so the law does not require us to ask for consent. We never use cookies for tracking or advertising.
      </p>
      <p>
        The installable app keeps public pages on your device so you can report offline. It never keeps a page shown to
        you while signed in, or a page with your personal data (such as your account, your data or a link we emailed
        you). When you sign out or erase your data, we tell your browser to clear what it keeps of this site, and the
        app removes its saved pages too. A report you make offline is saved on your device (with your contact details
        and photos) until it is sent, and belongs to the session it was saved in: it is shown and sent only while the
        same account is signed in there, or while nobody is if you were not signed in. Signing out deletes your
        account's unsent reports from the device, and erasing your data deletes everything the site saved on it; you are
        asked first.
      </p>
      <p>
        Your account holds your email address, the name you choose, and, if you set them, a password (stored only as an
        argon2id hash) and passkeys (public keys only). You can download or erase all of it, and everything else we hold
        under any email address you have used with us, on <a href="/my-data">your personal data</a> page, with or
        without an account. The download is put together while it is sent to you and no copy of it is kept on our
        server; to protect the site, it can be made up to 10 times an hour.
      </p>
      <p>
        When you change your email address, password or passkeys, we email your account's address about it and sign out
        your other devices. After an email address change, we send your previous address a link that can undo the change
        for 7 days. We keep your previous address with your account so that your download and erasure still find what
        you sent from it; erasing your account erases it.
      </p>
      <p>
        <strong>Which addresses are yours.</strong> An email address becomes part of your account only when you prove it
        for your account: when you create the account, when you change its address, or when you add an address from your
        account page and confirm it from that mailbox. Confirming anything else we email (a volunteering sign-up, a
        newsletter subscription, updates on a report, a personal-data link) proves the address for that alone, never for
        whoever is signed in. While you are signed in, a report or a volunteering sign-up you send is filed under your
        account's own address, so nobody can join another person's address to their account by typing it into a form.
        Identifiers that other programs send through our Open311 API are never taken as one of our accounts.
      </p>
      <p>
        <strong>Links we email you</strong> (to sign in, to confirm something, to see your data, to add an address to
        your account) work only from the button on the page they open. For each link we keep what it is for, the address
        we sent it to (and the account that asked, if any), when it expires and how often it was used, but not the link
        itself, only a scrambled fingerprint of it. Sign-in and similar links expire after 30 minutes, undo links after
        7 days, confirmation links after {RETENTION.unconfirmedDays} days (the link of a volunteer sign-up, which also
        withdraws it, lasts as long as the sign-up); we delete each a day after it expires, or with what it was for, and
        at once when you erase your data.
      </p>

      <h2>Changes to this notice</h2>
      <p>If we change this notice, we will update the "Last updated" date at the top of this page.</p>
    </>
  );
}
