/**
 * Counters for `GET /metrics` (Prometheus text format). Plain numbers: incrementing must cost nothing
 * on the request path.
 */
export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly errors = new Map<string, number>();
  private latencySumMs = 0;
  private latencyCount = 0;

  recordCall(method: string, elapsedMs: number, errorCode: string | undefined): void {
    this.requests.set(method, (this.requests.get(method) ?? 0) + 1);
    if (errorCode !== undefined) this.errors.set(errorCode, (this.errors.get(errorCode) ?? 0) + 1);
    this.latencySumMs += elapsedMs;
    this.latencyCount++;
  }

  render(gauges: Record<string, number>): string {
    const lines: string[] = [];
    lines.push("# TYPE bridge_requests_total counter");
    for (const [method, n] of this.requests) lines.push(`bridge_requests_total{method=${JSON.stringify(method)}} ${n}`);
    lines.push("# TYPE bridge_errors_total counter");
    for (const [code, n] of this.errors) lines.push(`bridge_errors_total{code=${JSON.stringify(code)}} ${n}`);
    lines.push("# TYPE bridge_request_duration_seconds summary");
    lines.push(`bridge_request_duration_seconds_sum ${(this.latencySumMs / 1000).toFixed(6)}`);
    lines.push(`bridge_request_duration_seconds_count ${this.latencyCount}`);
    for (const [name, value] of Object.entries(gauges)) {
      lines.push(`# TYPE bridge_${name} gauge`, `bridge_${name} ${value}`);
    }
    return `${lines.join("\n")}\n`;
  }
}

/** The gauges `GET /metrics` adds to the counters: clients, subscriptions, the editor's queue and state. */
export function bridgeGauges(
  editors: ReadonlyArray<{ readonly queued: number; readonly running: number; readonly state: string; readonly restarts: number }>,
  clients: Iterable<{ subscriptionTypes(): readonly string[] }>,
): Record<string, number> {
  let count = 0;
  let subscriptions = 0;
  for (const client of clients) {
    count++;
    subscriptions += client.subscriptionTypes().length;
  }
  const sum = (pick: (editor: (typeof editors)[number]) => number): number => editors.reduce((total, editor) => total + pick(editor), 0);
  return {
    clients: count,
    subscriptions,
    queue_depth: sum((e) => e.queued),
    host_running: sum((e) => e.running),
    host_ready: editors.some((e) => e.state === "ready" || e.state === "busy") ? 1 : 0,
    editors: editors.length,
    editors_ready: sum((e) => (e.state === "ready" || e.state === "busy" ? 1 : 0)),
    editor_restarts: sum((e) => e.restarts),
  };
}
