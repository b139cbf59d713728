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
