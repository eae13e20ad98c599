/*
 * A Prometheus histogram for the request path. prom-client's `Histogram.observe` checks and hashes the labels on
 * every call, even through a child from `labels()`: on a small WS call that was 3–6% of the bridge's CPU. Here a
 * series is found once (by its label values) and `observe` is a bucket scan and three additions; the text is made
 * when scraped, through the same prom-client registry (it asks `get()` for the values and formats them itself), so
 * the exposition is the one prom-client writes for its own histograms.
 */

/** One labelled series: counts per bucket (not cumulative), sum and count. */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Readonly<Record<string, string>>,
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    // Above the last bound, only `+Inf` (the count) has it, as in prom-client.
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

/** A value as prom-client's registry formats it. */
interface MetricValue {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName: string;
}

/** A histogram a prom-client `Registry` can hold (`registerMetric`): it reads `name`, `type` and `get()`. */
export class LeanHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {}

  /** The series of these label values (in `labelNames` order), made on first use. Keep it: lookups cost a join. */
  child(...values: string[]): HistogramSeries {
    const key = values.join("\u0000");
    let series = this.series.get(key);
    if (series === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => {
        labels[name] = values[i] ?? "";
      });
      series = new HistogramSeries(this.bounds, labels);
      this.series.set(key, series);
    }
    return series;
  }

  /** What prom-client's registry formats: cumulative buckets, `+Inf`, sum and count per series. */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValue[] }> {
    const values: MetricValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const series of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ labels: { le: bound, ...series.labels }, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { le: "+Inf", ...series.labels }, value: series.count, metricName: bucket });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
