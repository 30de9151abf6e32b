/**
 * Hand-made SVG bar charts: one horizontal bar per figure, the value printed at its end. No
 * dependency, and the file diffs as text.
 */
import type { Chart } from "./results.js";

const WIDTH = 720;
const BAR = 26;
const GAP = 10;
const LABEL = 300;
const TOP = 40;

/** The SVG text of a chart. */
export function svgChart(chart: Chart): string {
  const max = Math.max(...chart.bars.map((b) => (Number.isFinite(b.value) ? b.value : 0)), 1e-9);
  const span = WIDTH - LABEL - 110;
  const height = TOP + chart.bars.length * (BAR + GAP) + 10;
  const rows = chart.bars.map((b, i) => {
    const y = TOP + i * (BAR + GAP);
    const w = Number.isFinite(b.value) ? Math.max(1, (b.value / max) * span) : 0;
    return [
      `<text x="${LABEL - 8}" y="${y + BAR / 2 + 5}" text-anchor="end">${escape(b.label)}</text>`,
      `<rect x="${LABEL}" y="${y}" width="${w.toFixed(1)}" height="${BAR}" fill="${i % 2 === 0 ? "#3b6ea5" : "#d08c2e"}"/>`,
      `<text x="${(LABEL + w + 6).toFixed(1)}" y="${y + BAR / 2 + 5}">${escape(format(b.value))} ${escape(chart.unit)}</text>`,
    ].join("");
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ` +
      `font-family="sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="22" font-size="15" font-weight="bold">${escape(chart.title)}</text>`,
    ...rows,
    "</svg>",
    "",
  ].join("\n");
}

/** A figure as the doc and the charts print it: integers for big values, 3 significant digits else. */
export function format(v: number): string {
  if (!Number.isFinite(v)) return "n/a";
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString("en-US");
  return Number(v.toPrecision(3)).toString();
}

function escape(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
