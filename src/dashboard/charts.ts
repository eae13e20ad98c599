/*
 * Small inline-SVG line charts of the bridge's call statistics: request rate, error rate and latency percentiles
 * over the window `GET /status` reports. Bridges that do not report `calls` get "no data".
 */
import type { CallStats } from "./api.js";
import { el, svg, type Elem } from "./dom.js";

const WIDTH = 240;
const HEIGHT = 60;

interface Series {
  readonly label: string;
  readonly className: string;
  readonly values: ReadonlyArray<number | null>;
}

function chart(title: string, unit: string, series: readonly Series[]): Elem {
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = Math.max(1e-9, ...all);
  const box = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT, class: "chart", role: "img" });
  for (const s of series) {
    const n = s.values.length;
    const points = s.values
      .map((v, i) => (v === null ? null : `${((i / Math.max(1, n - 1)) * WIDTH).toFixed(1)},${(HEIGHT - 2 - (v / max) * (HEIGHT - 4)).toFixed(1)}`))
      .filter((p): p is string => p !== null);
    if (points.length > 0) box.append(svg("polyline", { points: points.join(" "), class: s.className, fill: "none" }));
  }
  const latest = series.map((s) => `${s.label} ${format(lastValue(s.values))}${unit}`).join(" · ");
  const caption = el("figcaption", "", `${title}: `, el("span", "chart-latest", latest), el("span", "chart-max", ` (max ${format(max)}${unit})`));
  return el("figure", "chart-figure", box, caption);
}

function lastValue(values: ReadonlyArray<number | null>): number | null {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return values[i]!;
  return null;
}

function format(value: number | null): string {
  if (value === null) return "–";
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** Renders the three charts into `into`, or "no data" when the bridge reports no call statistics. */
export function renderCharts(into: Elem, calls: CallStats | undefined): void {
  if (calls === undefined || !Array.isArray(calls.buckets) || calls.buckets.length === 0) {
    into.replaceChildren(el("p", "muted", "no data (this bridge reports no call statistics)"));
    return;
  }
  const perSecond = 1000 / Math.max(1, calls.bucketMs);
  const buckets = calls.buckets;
  into.replaceChildren(
    chart("requests", "/s", [{ label: "rate", className: "line-count", values: buckets.map((b) => b.count * perSecond) }]),
    chart("errors", "%", [{ label: "rate", className: "line-errors", values: buckets.map((b) => (b.count === 0 ? null : (100 * b.errors) / b.count)) }]),
    chart("latency", " ms", [
      { label: "p50", className: "line-p50", values: buckets.map((b) => b.p50) },
      { label: "p95", className: "line-p95", values: buckets.map((b) => b.p95) },
      { label: "p99", className: "line-p99", values: buckets.map((b) => b.p99) },
    ]),
  );
}
