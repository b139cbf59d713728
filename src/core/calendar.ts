/**
 * Midnight UTC of a calendar day, for any year: `Date.UTC(y, …)` and `new Date(y, …)` read years 0–99 as 1900–1999,
 * so `0050-01-01` would silently become 1950. Months and days overflow as in Date.UTC (day 0 is the last day of
 * the previous month).
 */
export function utcDay(year: number, monthIndex: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date;
}

/** The number of days in a month (1–12) of a year of the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  return utcDay(year, month, 0).getUTCDate();
}

/**
 * The instants both databases can store and compare: years 0001–9999. PostgreSQL has no year 0 (`0000-01-01` is
 * out of range there) and ISO strings past 9999 gain a sign and six digits, so user-given dates outside this range
 * are refused and computed window edges are clamped to it.
 */
export const FIRST_INSTANT = Date.parse("0001-01-01T00:00:00.000Z");
export const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

/** True for an instant (ms since the epoch) within FIRST_INSTANT..LAST_INSTANT. */
export function isStorableInstant(ms: number): boolean {
  return Number.isFinite(ms) && ms >= FIRST_INSTANT && ms <= LAST_INSTANT;
}

/** An instant clamped into FIRST_INSTANT..LAST_INSTANT. */
export function clampInstant(ms: number): number {
  return Math.min(Math.max(ms, FIRST_INSTANT), LAST_INSTANT);
}
