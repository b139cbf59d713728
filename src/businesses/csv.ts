/** One CSV record: its fields and the line it starts on (1-based). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * Parses RFC 4180 CSV: comma-separated, fields optionally in double quotes (`""` is a quote inside one), quoted
 * fields may span lines, CRLF or LF line ends, a UTF-8 byte-order mark is ignored. Blank lines are skipped.
 * Throws on a quote that is never closed, naming its line.
 */
export function parseCsv(text: string): CsvRecord[] {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let recordLine = 1;
  let i = 0;
  let quoted = false;
  let fieldStarted = false;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === "" && !fieldStarted)) records.push({ line: recordLine, fields });
    fields = [];
    field = "";
    fieldStarted = false;
  };
  while (i < src.length) {
    const c = src[i] as string;
    if (quoted) {
      if (c === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      if (c === "\n") line++;
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === "") {
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    if (c === ",") {
      fields.push(field);
      field = "";
      fieldStarted = true;
      i++;
      continue;
    }
    if (c === "\r" || c === "\n") {
      endRecord();
      i += c === "\r" && src[i + 1] === "\n" ? 2 : 1;
      line++;
      recordLine = line;
      continue;
    }
    field += c;
    fieldStarted = true;
    i++;
  }
  if (quoted) throw new Error(`line ${recordLine}: a quoted field is never closed`);
  if (field !== "" || fields.length > 0 || fieldStarted) endRecord();
  return records;
}
