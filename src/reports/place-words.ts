import { distanceMetres } from "../core/geo.js";
import type { GazetteerEntry } from "./places.js";

export { type GazetteerEntry, loadGazetteer } from "./places.js";

/** Closer than this to a gazetteer point, a report is "at" the landmark or "on" the street. */
const AT_METRES = 15;
/** Beyond this, the nearest name says nothing useful about where a report is. */
const NEAR_METRES = 1000;
/** A landmark's description names the nearest street too when it is this close to the report. */
const STREET_METRES = 200;
const METRES_PER_DEGREE_LAT = 111_320;

/** Metres as people say them: to 10 m under 300 m, to 50 m beyond ("About 40 m", "About 650 m", "About 1 km"). */
function roundedDistance(m: number): string {
  const rounded = m < 300 ? Math.round(m / 10) * 10 : Math.round(m / 50) * 50;
  return rounded >= 1000 ? `${rounded / 1000} km` : `${rounded} m`;
}

/** Degrees in words, the last resort: "50.98572° N, 2.04310° W". */
function coordinatesInWords(lat: number, lng: number): string {
  return `${Math.abs(lat).toFixed(5)}° ${lat < 0 ? "S" : "N"}, ${Math.abs(lng).toFixed(5)}° ${lng < 0 ? "W" : "E"}`;
}

export interface Nearest {
  place: GazetteerEntry;
  metres: number;
}

/**
 * The nearest landmark and the nearest street to a point. Squared distances on an equirectangular projection
 * choose them (exact enough across a village, and cheap: a page of 1,000 Open311 requests against 2,000 names is two
 * million multiplications); the great-circle distance is then computed for the two chosen.
 */
function nearestTo(lat: number, lng: number, gazetteer: readonly GazetteerEntry[]) {
  const mPerDegLng = METRES_PER_DEGREE_LAT * Math.max(Math.cos((lat * Math.PI) / 180), 0.01);
  let landmark: GazetteerEntry | null = null;
  let street: GazetteerEntry | null = null;
  let landmarkD = Infinity;
  let streetD = Infinity;
  for (const p of gazetteer) {
    const dy = (p.latitude - lat) * METRES_PER_DEGREE_LAT;
    const dx = (p.longitude - lng) * mPerDegLng;
    const d = dy * dy + dx * dx;
    if (p.kind === "street") {
      if (d < streetD) [street, streetD] = [p, d];
    } else if (d < landmarkD) [landmark, landmarkD] = [p, d];
  }
  const measured = (p: GazetteerEntry | null): Nearest | null =>
    p ? { place: p, metres: distanceMetres(lat, lng, p.latitude, p.longitude) } : null;
  return { landmark: measured(landmark), street: measured(street) };
}

/** The nearest gazetteer street to a point and its distance in metres, or null without streets (alerts.ts). */
export function nearestStreet(lat: number, lng: number, gazetteer: readonly GazetteerEntry[]): Nearest | null {
  return nearestTo(lat, lng, gazetteer).street;
}

/** The gazetteer's words for a point, and the name they are about; null when no name is within NEAR_METRES. */
function gazetteerWords(lat: number, lng: number, gazetteer: readonly GazetteerEntry[]) {
  const { landmark, street } = nearestTo(lat, lng, gazetteer);
  const nearest = landmark && (!street || landmark.metres <= street.metres) ? landmark : street;
  if (!nearest || nearest.metres > NEAR_METRES) return null;
  const { place, metres } = nearest;
  const main =
    metres < AT_METRES
      ? `${place.kind === "street" ? "On" : "At"} ${place.name}`
      : `About ${roundedDistance(metres)} from ${place.name}`;
  // A landmark is placed on its street, when one is near and the landmark's own name does not already say it.
  const withStreet =
    place.kind === "landmark" &&
    street &&
    street.metres <= STREET_METRES &&
    !place.name.toLowerCase().includes(street.place.name.toLowerCase());
  return { name: place.name, words: withStreet ? `${main}, near ${street.place.name}` : main };
}

/** What the describing may use: `reporterText: false` leaves out what the reporter typed; `coordinates: false` the last resort. */
export interface DescribeOptions {
  reporterText?: boolean;
  coordinates?: boolean;
}

/**
 * A report's place in words, the one rule for every page, list, feed, mail and API that says where a report is.
 * What the reporter said comes first (the gazetteer place they chose, then their own description of the place, the
 * name once), the gazetteer's words for the point beside it unless what they said names that place already
 * ("Outside number 12 (about 40 m from Bus stop outside the Post Office, near High Street)"). With only a point: the nearest landmark or street
 * ("At War memorial", "On Church Lane", "About 40 m from …"); with nothing named within a kilometre, the coordinates
 * in words. Null when there is no place at all. Built only from the gazetteer, the reporter's public place text and
 * the point, so it holds nothing that is not already public.
 */
export function describePlace(
  r: { lat: number | null; lng: number | null; placeName?: string | null; locationText?: string | null },
  gazetteer: readonly GazetteerEntry[],
  options: DescribeOptions = {},
): string | null {
  const typed = options.reporterText === false ? null : r.locationText?.trim() || null;
  const chosen = r.placeName?.trim() || null;
  const mentions = (text: string, name: string) => text.toLowerCase().includes(name.toLowerCase());
  // "Church Lane: Outside 3 Church Lane" says the street twice: the typed text alone says it all.
  const given = chosen && typed ? (mentions(typed, chosen) ? typed : `${chosen}: ${typed}`) : (chosen ?? typed);
  const near = r.lat !== null && r.lng !== null ? gazetteerWords(r.lat, r.lng, gazetteer) : null;
  if (given) {
    if (!near || near.name === chosen || mentions(given, near.name)) return given;
    return `${given} (${near.words.charAt(0).toLowerCase()}${near.words.slice(1)})`;
  }
  if (near) return near.words;
  if (r.lat !== null && r.lng !== null && options.coordinates !== false) {
    return `Marked on the map at ${coordinatesInWords(r.lat, r.lng)}`;
  }
  return null;
}
