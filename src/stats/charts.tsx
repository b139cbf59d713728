/**
 * Charts drawn on the server as SVG, each with the same figures in a data table beside it: the table is what
 * screen readers, keyboard users and copy-paste get, the SVG is a picture of it (no script, nothing to load).
 */

export interface ChartDatum {
  label: string;
  value: number;
}

/** More columns for the table only (e.g. unique visitors beside page views). */
export interface ExtraColumn {
  heading: string;
  values: (number | string | null)[];
}

export interface ChartProps {
  id: string;
  title: string;
  /** Heading of the label column and of the value column of the table. */
  labelHeading: string;
  valueHeading: string;
  data: ChartDatum[];
  extra?: ExtraColumn[];
  /** "columns" for a series over time, "bars" for categories. */
  kind: "columns" | "bars";
}

const INK = "#1b1f23";
const BAR = "#1d5b3a";
const GRID = "#c9d0c6";
/**
 * The drawing's width in SVG units; the CSS shows it at most this many pixels wide (`.chart-svg`), so text of 13
 * units is 13 px on a wide screen and still at least 10 px on a 320-pixel phone, where the chart shrinks to fit.
 */
const WIDTH = 360;
const FONT = 13;
const LINE = 16;

export const formatNumber = (n: number) => n.toLocaleString("en-GB");

/** A label in lines of at most `max` characters, broken between words (a longer word is split), never cut short. */
export function wrapLabel(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    for (let rest = word; rest.length > 0;) {
      const room = line === "" ? max : max - line.length - 1;
      if (rest.length <= room) {
        line = line === "" ? rest : `${line} ${rest}`;
        rest = "";
      } else if (line !== "") {
        lines.push(line);
        line = "";
      } else {
        lines.push(rest.slice(0, max));
        rest = rest.slice(max);
      }
    }
  }
  if (line !== "") lines.push(line);
  return lines.length > 0 ? lines : [""];
}

function Columns({ data }: { data: ChartDatum[] }) {
  const height = 220;
  const left = 40;
  const bottom = 28;
  const top = 12;
  const plotHeight = height - top - bottom;
  const max = Math.max(1, ...data.map((d) => d.value));
  const slot = (WIDTH - left - 8) / Math.max(1, data.length);
  // Labels lie flat: at most five of them, so that each has room at this width.
  const every = Math.max(1, Math.ceil(data.length / 5));
  return (
    <svg viewBox={`0 0 ${WIDTH} ${height}`} class="chart-svg" aria-hidden="true" focusable="false">
      <line x1={left} x2={WIDTH} y1={top} y2={top} stroke={GRID} />
      <line x1={left} x2={WIDTH} y1={top + plotHeight} y2={top + plotHeight} stroke={INK} />
      <text x={left - 6} y={top + 4} text-anchor="end" font-size={FONT} fill={INK}>
        {formatNumber(max)}
      </text>
      <text x={left - 6} y={top + plotHeight + 4} text-anchor="end" font-size={FONT} fill={INK}>
        0
      </text>
      {data.map((d, i) => {
        const h = (d.value / max) * plotHeight;
        const x = left + i * slot;
        return (
          <g key={i}>
            <rect x={x + slot * 0.15} y={top + plotHeight - h} width={Math.max(1, slot * 0.7)} height={h} fill={BAR} />
            {i % every === 0 ? (
              <text x={x + slot / 2} y={height - 8} text-anchor="middle" font-size={FONT} fill={INK}>
                {d.label}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

function Bars({ data }: { data: ChartDatum[] }) {
  const labelWidth = 150;
  const gap = 8;
  const rows = data.map((d) => wrapLabel(d.label, 19));
  const heights = rows.map((lines) => Math.max(26, lines.length * LINE + 10));
  const height =
    Math.max(
      26,
      heights.reduce((a, b) => a + b, 0),
    ) + 4;
  const max = Math.max(1, ...data.map((d) => d.value));
  const plot = WIDTH - labelWidth - 44;
  let y = 2;
  return (
    <svg viewBox={`0 0 ${WIDTH} ${height}`} class="chart-svg" aria-hidden="true" focusable="false">
      {data.map((d, i) => {
        const lines = rows[i]!;
        const rowHeight = heights[i]!;
        const top = y;
        y += rowHeight;
        const w = (d.value / max) * plot;
        const firstBaseline = top + (rowHeight - lines.length * LINE) / 2 + FONT;
        const middle = top + rowHeight / 2;
        return (
          <g key={i}>
            <text x={labelWidth - gap} y={firstBaseline} text-anchor="end" font-size={FONT} fill={INK}>
              {lines.map((line, j) => (
                <tspan key={j} x={labelWidth - gap} dy={j === 0 ? 0 : LINE}>
                  {line}
                </tspan>
              ))}
            </text>
            <rect x={labelWidth} y={middle - 9} width={Math.max(d.value > 0 ? 2 : 0, w)} height={18} fill={BAR} />
            <text x={labelWidth + w + 6} y={middle + 5} font-size={FONT} fill={INK}>
              {formatNumber(d.value)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** A chart with its data table. The SVG is hidden from assistive technology; the table carries the figures. */
export function Chart({ id, title, labelHeading, valueHeading, data, extra = [], kind }: ChartProps) {
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <div class="chart-body">
        {data.length === 0 ? (
          <p>Nothing to show yet.</p>
        ) : kind === "columns" ? (
          <Columns data={data} />
        ) : (
          <Bars data={data} />
        )}
        <table class="chart-table">
          <caption class="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{labelHeading}</th>
              <th scope="col">{valueHeading}</th>
              {extra.map((c) => (
                <th scope="col" key={c.heading}>
                  {c.heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.map((d, i) => (
              <tr key={i}>
                <th scope="row">{d.label}</th>
                <td>{formatNumber(d.value)}</td>
                {extra.map((c) => {
                  const v = c.values[i];
                  return (
                    <td key={c.heading}>
                      {v === null || v === undefined ? "–" : typeof v === "number" ? formatNumber(v) : v}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** `2026-11` -> "Nov 2026". */
export function monthLabel(month: string): string {
  return new Date(`${month}-01T00:00:00.000Z`).toLocaleDateString("en-GB", {
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  });
}

/** `2026-11-23` -> "23 Nov". */
export function dayLabel(day: string): string {
  return new Date(`${day}T00:00:00.000Z`).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  });
}
