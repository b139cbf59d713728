import type { ReportStatus } from "../../core/db/schema.js";
import { STATUS_LABELS } from "../model.js";
import type { Thumbnail } from "../repository.js";

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });
const dateTimeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

export function formatDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

export function DateTime({ iso, withTime = false }: { iso: string; withTime?: boolean }) {
  return <time dateTime={iso}>{(withTime ? dateTimeFormat : dateFormat).format(new Date(iso))}</time>;
}

export function StatusTag({ status }: { status: ReportStatus }) {
  return <span class={`tag status-${status}`}>{STATUS_LABELS[status]}</span>;
}

/**
 * A report's photo in a list: its derived thumbnail at the size of its shape (width and height given: nothing moves
 * when it loads), loaded lazily, described by the report's title.
 */
export function ReportThumbnail({ thumbnail, title }: { thumbnail: Thumbnail | null; title: string }) {
  if (!thumbnail) return null;
  return (
    <img
      class="report-thumb"
      src={thumbnail.url}
      alt={`Photo: ${title}`}
      width={thumbnail.width}
      height={thumbnail.height}
      loading="lazy"
      decoding="async"
    />
  );
}

/**
 * A report's place: in words first (reports/place-words.ts), then its map position on a quieter line, with a link to
 * OpenStreetMap where the page offers one. The public page and the staff view say it the same way.
 */
export function PlaceLine({
  r,
  osmLink = false,
}: {
  r: { placeInWords: string | null; lat: number | null; lng: number | null };
  osmLink?: boolean;
}) {
  return (
    <>
      {r.placeInWords ?? "Not given"}
      {r.lat !== null && r.lng !== null ? (
        <span class="place-coords">
          Map position{" "}
          <span class="coords">
            {r.lat.toFixed(5)}, {r.lng.toFixed(5)}
          </span>
          {osmLink ? (
            <>
              {" "}
              (
              <a href={`https://www.openstreetmap.org/?mlat=${r.lat}&mlon=${r.lng}#map=18/${r.lat}/${r.lng}`}>
                open in OpenStreetMap
              </a>
              )
            </>
          ) : null}
        </span>
      ) : null}
    </>
  );
}

/**
 * The map of one report's position (src/client/report-view-map.ts draws it; the page needs leaflet.css and
 * report-view-map.js). Without JavaScript the box stays empty and PlaceLine says the same in words and coordinates.
 * The public page and the staff view show the same map.
 */
export function ReportViewMap({
  r,
  tiles,
}: {
  r: { lat: number; lng: number; title: string; status: ReportStatus };
  tiles: { tileUrl: string; attribution: string; zooms?: string | undefined };
}) {
  return (
    <div class="map-box">
      <div
        class="map report-view-map"
        data-points={JSON.stringify([{ lat: r.lat, lng: r.lng, title: r.title, status: r.status }])}
        data-label={`Map showing where “${r.title}” is`}
        data-tile-url={tiles.tileUrl}
        data-tile-zooms={tiles.zooms}
        data-attribution={tiles.attribution}
      />
    </div>
  );
}
