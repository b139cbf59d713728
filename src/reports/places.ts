import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";

/** A gazetteer entry (a street or landmark) with its position. */
export interface GazetteerPlace {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
}

/** A gazetteer entry with its kind: streets are told apart from landmarks in words ("On …", "At …"). */
export interface GazetteerEntry extends GazetteerPlace {
  kind: "street" | "landmark";
}

/** The gazetteer's size bound: a village has dozens of names, a town hundreds. */
const MAX_PLACES = 2000;
/** Suggestions shown for a name not found. */
const MAX_SUGGESTIONS = 5;

/** A name as people type it: case, accents, curly apostrophes and spacing do not matter. */
function normalise(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[\u2018\u2019`]/g, "'")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The whole gazetteer, in name order: for the place box, its suggestions and describing places in words. One small
 * query (the gazetteer is bounded); read once per request by the presenters, so a page of reports or an Open311
 * answer costs one read whatever its size. The public data version moves on every change to places (migration
 * 0020), so cached answers follow a renamed place.
 */
export async function loadGazetteer(db: Kysely<DB>): Promise<GazetteerEntry[]> {
  return db
    .selectFrom("places")
    .select(["id", "name", "kind", "latitude", "longitude"])
    .orderBy("name")
    .orderBy("id")
    .limit(MAX_PLACES)
    .execute();
}

/** The gazetteer's names, for the place box's list of suggestions, in alphabetical order. */
export async function placeNames(db: Kysely<DB>): Promise<string[]> {
  return [...new Set((await loadGazetteer(db)).map((r) => r.name))];
}

/**
 * Edit distance of two words, a swap of neighbouring letters counting as one edit ("chruch" is one from "church"),
 * for "did you mean". Callers pass words of at most 30 characters.
 */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.MAX_SAFE_INTEGER;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** Whether a typed word names a word of a place: its start, or the whole word with a typo or two. */
function wordMatches(typed: string, word: string): boolean {
  if (word.startsWith(typed)) return true;
  if (typed.length < 4 || typed.length > 30 || word.length > 30) return false;
  return editDistance(typed, word) <= (typed.length >= 7 ? 2 : 1);
}

/**
 * The gazetteer place a resident typed in the place box: by its name (case, accents and spacing ignored) or its id.
 * When none matches, the names that come closest (sharing a word, containing what was typed, or a typo away).
 */
export async function findPlace(
  db: Kysely<DB>,
  typed: string,
): Promise<{ place: GazetteerPlace } | { place: null; suggestions: string[] }> {
  const wanted = normalise(typed);
  if (wanted === "") return { place: null, suggestions: [] };
  const rows = await loadGazetteer(db);
  const found = rows.find((p) => normalise(p.name) === wanted) ?? rows.find((p) => p.id === typed.trim());
  if (found) return { place: found };
  const words = wanted
    .split(" ")
    .filter((w) => w.length >= 3 && w !== "the")
    .slice(0, 10);
  const scored = rows
    .map((p) => {
      const name = normalise(p.name);
      const nameWords = name.split(/[^a-z0-9']+/).filter((w) => w !== "");
      const shared = words.filter((w) => nameWords.some((n) => wordMatches(w, n))).length;
      return { name: p.name, score: (name.includes(wanted) ? 10 : 0) + shared };
    })
    .filter((p) => p.score > 0)
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  return { place: null, suggestions: [...new Set(scored.map((p) => p.name))].slice(0, MAX_SUGGESTIONS) };
}
