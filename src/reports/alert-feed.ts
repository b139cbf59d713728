import type { Kysely } from "kysely";
import { Type } from "typebox";
import type { DB } from "../core/db/schema.js";
import { AppError, notFound } from "../core/http/errors.js";
import { ALERT_RADII, ON_STREET_METRES, radiusInWords } from "./alerts.js";
import { loadGazetteer, nearestStreet } from "./place-words.js";
import { findPlace } from "./places.js";
import { type PublicReport, publicReportsNear, type ReportFilter } from "./repository.js";

/** The most reports a feed lists. */
const FEED_SIZE = 50;
/** Reports read around a place before the newest are kept (a village has few within a kilometre). */
const READ_AROUND = 500;
/** How far from a street's point its reports are looked for; a report is on it when it is the nearest street. */
const STREET_SEARCH_METRES = 400;

/**
 * The alert choices as Atom feed parameters (/reports.atom): `near` (a gazetteer place) with `radius` (metres, one of
 * the alert radii, 500 when not given), or `street` (a gazetteer street's id or name), besides the list's category
 * and status. Bounded: the schema limits lengths and the radius, and a feed reads at most READ_AROUND reports.
 */
export const feedAreaFields = {
  near: Type.Optional(Type.String({ maxLength: 100 })),
  radius: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  street: Type.Optional(Type.String({ maxLength: 100 })),
};

/** A feed's area: its words for the title, its query parameters and its reports, newest first. */
export interface FeedArea {
  label: string;
  params: [string, string][];
  items(filter: ReportFilter): Promise<PublicReport[]>;
}

const newestFirst = (a: PublicReport, b: PublicReport) => b.createdAt.localeCompare(a.createdAt);

/** The area a feed's query asks for, null for none; 400 for a radius not offered, 404 for an unknown place. */
export async function feedArea(
  db: Kysely<DB>,
  q: { near?: string | undefined; radius?: number | undefined; street?: string | undefined },
): Promise<FeedArea | null> {
  if (q.near !== undefined && q.street !== undefined) {
    throw new AppError("bad_request", "Ask for reports near a place or on a street, not both.");
  }
  if (q.radius !== undefined && q.near === undefined) {
    throw new AppError("bad_request", "A radius goes with a place (near).");
  }
  if (q.near !== undefined) {
    const radius = q.radius ?? 500;
    if (!(ALERT_RADII as readonly number[]).includes(radius)) {
      throw new AppError("bad_request", `The radius is one of ${ALERT_RADII.join(", ")} metres.`);
    }
    const found = await findPlace(db, q.near);
    if (!found.place) throw notFound("There is no such street or landmark.");
    const place = found.place;
    return {
      label: `within ${radiusInWords(radius)} of ${place.name}`,
      params: [
        ["near", place.name],
        ["radius", String(radius)],
      ],
      async items(filter) {
        const point = { lat: place.latitude, lng: place.longitude };
        const { items } = await publicReportsNear(db, point, filter, { offset: 0, limit: READ_AROUND }, radius);
        return items.sort(newestFirst).slice(0, FEED_SIZE);
      },
    };
  }
  if (q.street !== undefined) {
    const wanted = q.street.trim().toLowerCase();
    const gazetteer = await loadGazetteer(db);
    const street = gazetteer.find((p) => p.kind === "street" && (p.id === q.street || p.name.toLowerCase() === wanted));
    if (!street) throw notFound("There is no such street.");
    return {
      label: `on ${street.name}`,
      params: [["street", street.id]],
      async items(filter) {
        const point = { lat: street.latitude, lng: street.longitude };
        const around = { offset: 0, limit: READ_AROUND };
        const { items } = await publicReportsNear(db, point, filter, around, STREET_SEARCH_METRES);
        return items
          .filter((r) => {
            if (r.placeName === street.name) return true;
            const nearest = r.lat !== null && r.lng !== null ? nearestStreet(r.lat, r.lng, gazetteer) : null;
            return nearest?.place.id === street.id && nearest.metres <= ON_STREET_METRES;
          })
          .sort(newestFirst)
          .slice(0, FEED_SIZE);
      },
    };
  }
  return null;
}
