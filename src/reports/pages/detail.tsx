import { ModeratedMark, ModerationNotice, ReportThisLink } from "../../moderation/index.js";
import { isPublic } from "../../core/visibility.js";
import type { PublicReportDetail, PublicUpdate } from "../repository.js";
import { ResidentUpdateForm } from "./resident-update.js";
import type { DuplicateLinks } from "../duplicates.js";
import { DuplicateLinksView } from "./duplicates.js";
import { FollowForm } from "./follow.js";
import { SeenForm, seenWords } from "./seen.js";
import { DateTime, PlaceLine, ReportViewMap, StatusTag } from "./common.js";
import type { MapTiles } from "./list.js";
import { type ForwardingRow, forwardingWords, syncWords } from "../forward.js";

export function ReportDetail({
  r,
  tiles,
  csrfToken,
  links,
  signedIn,
  seen,
  forwardings = [],
  maxPhotoMb,
}: {
  r: PublicReportDetail;
  tiles: MapTiles;
  csrfToken: string;
  links: DuplicateLinks;
  /** Whether the visitor is signed in: the update form then asks for no address. */
  signedIn?: boolean;
  /** How many people said they have seen it too (never who), and whether the viewer is signed in. */
  seen: { count: number; signedIn: boolean };
  /** Where it was sent (forward.ts), newest first: sent ones only. */
  forwardings?: ForwardingRow[];
  /** The largest photo the update form accepts, in MB. */
  maxPhotoMb?: number;
}) {
  // The report's own photos; an update's photo is shown with the update in the history.
  const ownPhotos = r.photos.filter((ph) => ph.updateId === null);
  return (
    <>
      <p>
        <a href="/reports">All reports</a>
      </p>
      <h1>{r.title}</h1>
      <ModerationNotice moderatedAt={r.moderatedAt} visibility={r.visibility} />
      <p>
        <StatusTag status={r.status} />
      </p>
      <DuplicateLinksView links={links} />
      <dl class="report-facts">
        <dt>Reference</dt>
        <dd>{r.reference}</dd>
        <dt>Category</dt>
        <dd>
          <a href={`/reports?category=${encodeURIComponent(r.categoryCode)}`}>{r.categoryName}</a>
        </dd>
        <dt>Reported</dt>
        <dd>
          <DateTime iso={r.createdAt} withTime />
        </dd>
        <dt>Last updated</dt>
        <dd>
          <DateTime iso={r.updatedAt} withTime />
        </dd>
        <dt>Location</dt>
        <dd>
          <PlaceLine r={r} osmLink />
        </dd>
        {forwardings.length > 0 ? (
          <>
            <dt>Sent to the council</dt>
            <dd>
              {forwardings.map((f, i) => (
                <span key={f.id}>
                  {i > 0 ? <br /> : null}
                  {forwardingWords(f)}, <DateTime iso={f.sent_at ?? f.created_at} />.
                  {f.synced_at && syncWords(f) ? (
                    <>
                      {" "}
                      Last sync <DateTime iso={f.synced_at} withTime />: {syncWords(f)}.
                    </>
                  ) : null}
                </span>
              ))}{" "}
              Response times depend on the council.
            </dd>
          </>
        ) : r.forwardedAt ? (
          <>
            <dt>Sent to the council</dt>
            <dd>
              {r.forwardedToName ?? "The council"}, <DateTime iso={r.forwardedAt} />. Response times depend on the
              council.
            </dd>
          </>
        ) : null}
      </dl>
      {r.lat !== null && r.lng !== null ? (
        <>
          <ReportViewMap r={{ ...r, lat: r.lat, lng: r.lng }} tiles={tiles} />
          <p>
            <a class="report-here" href={`/report?lat=${r.lat}&lng=${r.lng}`}>
              Report another problem here
            </a>
          </p>
        </>
      ) : null}
      <h2>Description</h2>
      {r.description.split(/\n{2,}/).map((para, i) => (
        <p key={i} class="report-description">
          {para}
        </p>
      ))}
      {ownPhotos.length > 0 ? (
        <>
          <h2>Photos</h2>
          <ul class="report-photos">
            {ownPhotos.map((ph, i) => (
              <li key={ph.full}>
                <ModeratedMark visibility={ph.visibility} />
                <a href={ph.full}>
                  <img
                    src={ph.thumb}
                    alt={`Photo ${i + 1} of ${ownPhotos.length} for this report (opens the full size)`}
                    width={Math.round((ph.width * 400) / Math.max(ph.width, ph.height))}
                    height={Math.round((ph.height * 400) / Math.max(ph.width, ph.height))}
                    loading="lazy"
                  />
                </a>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h2>History</h2>
      <ol class="report-history">
        {r.history.map((u, i) => (
          <li key={i} id={`update-${u.id}`}>
            <ModeratedMark visibility={u.visibility} />
            <DateTime iso={u.at} withTime />: <HistoryHeading u={u} first={i === 0} />
            {u.note ? <p class="update-note">{u.note}</p> : null}
            {u.note && i > 0 ? <ReportThisLink kind="update" id={String(u.id)} noun="update" /> : null}
            {r.photos
              .filter((ph) => ph.updateId === u.id)
              .map((ph) => (
                <p class="update-photo" key={ph.full}>
                  <ModeratedMark visibility={ph.visibility} />
                  <a href={ph.full}>
                    <img
                      src={ph.thumb}
                      alt="Photo added with this update (opens the full size)"
                      width={Math.round((ph.width * 400) / Math.max(ph.width, ph.height))}
                      height={Math.round((ph.height * 400) / Math.max(ph.width, ph.height))}
                      loading="lazy"
                    />
                  </a>{" "}
                  <ReportThisLink kind="photo" id={String(ph.id)} noun="photo" />
                </p>
              ))}
          </li>
        ))}
      </ol>
      {isPublic(r.visibility) ? (
        <SeenForm reference={r.reference} csrfToken={csrfToken} count={seen.count} signedIn={seen.signedIn} />
      ) : (
        <p>{seenWords(seen.count)}</p>
      )}
      {isPublic(r.visibility) ? (
        <ResidentUpdateForm
          reference={r.reference}
          csrfToken={csrfToken}
          signedIn={signedIn ?? false}
          {...(maxPhotoMb === undefined ? {} : { maxPhotoMb })}
        />
      ) : null}
      {isPublic(r.visibility) ? <FollowForm reference={r.reference} csrfToken={csrfToken} /> : null}
      <p>
        {r.placeName ? (
          <a href={`/alerts?scope=near&place=${encodeURIComponent(r.placeName)}`}>Email me about new reports here</a>
        ) : (
          <a href={`/alerts?scope=category&category=${encodeURIComponent(r.categoryCode)}`}>
            Email me about new reports in this category
          </a>
        )}
      </p>
      <p>Is this report about something dangerous? Not for emergencies: call 999 if someone is in danger.</p>
      <p>
        <ReportThisLink kind="report" id={r.reference} noun="report" />
      </p>
    </>
  );
}

/**
 * Who wrote a public update, as the history says it (events.ts `author_kind`): staff are the volunteers who run the
 * site, the council a council department; the platform's own say nothing.
 */
const UPDATE_FROM: Partial<Record<PublicUpdate["by"], string>> = {
  resident: "Update from a resident",
  reporter: "Update from the reporter",
  staff: "Update from the volunteers",
  council: "Update from the council",
};

/** A history entry's heading: "Reported", a resident's or the reporter's update, or the status and who set it. */
function HistoryHeading({ u, first }: { u: PublicUpdate; first: boolean }) {
  if (first) return <strong>Reported</strong>;
  const from = UPDATE_FROM[u.by];
  if (u.event === "update" && (u.by === "resident" || u.by === "reporter")) return <strong>{from}</strong>;
  return (
    <>
      <strong>{u.statusLabel}</strong>
      {from ? <span class="update-by"> · {from}</span> : null}
    </>
  );
}
