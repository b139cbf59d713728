/**
 * CSV for exports that staff open in a spreadsheet: every cell quoted, and guarded against formulas (OWASP "CSV
 * injection"): a cell that a spreadsheet would read as a formula gets a leading `'`, so it shows as the text it is.
 * That is a cell starting with a tab or a carriage return, or, after any leading whitespace, with = + - @ or their
 * full-width forms (＝ ＋ － ＠, which some spreadsheets read as the ASCII ones). Every CSV export writes its cells here.
 */
const FORMULA = /^(?:[\t\r]|\s*[=+\-@\uff1d\uff0b\uff0d\uff20])/;

/** One cell: quoted (`"` doubled), with `'` before anything a spreadsheet would run. */
export function csvCell(value: string | number | null | undefined): string {
  const s = value === null || value === undefined ? "" : String(value);
  const safe = FORMULA.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** One record: its cells (csvCell) joined by commas, ended by CRLF (RFC 4180). */
export function csvRecord(values: readonly (string | number | null | undefined)[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}
