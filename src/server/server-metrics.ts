/** Upper bounds of the request-duration histogram, in seconds. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface DurationSeries {
  counts: number[];
  sum: number;
  count: number;
}

/**
 * The server's own metrics in Prometheus text format (`GET /metrics`): requests by route,
 * method and status, request durations by route, OTLP spans received and rejected, requests
 * turned away under load, requests in flight, and gauges read at scrape time. The engine's
 * metrics (decisions, refusals, stops) are loopguard's usual OpenTelemetry metrics
 * (loopguard/telemetry), exported the usual way so the dashboards work unchanged. Labels are
 * route templates, never run ids.
 */
export class ServerMetrics {
  private readonly requests = new Map<string, number>();
  private readonly durations = new Map<string, DurationSeries>();
  spansReceived = 0;
  spansRejected = 0;
  overloaded = 0;
  inFlight = 0;

  constructor(private readonly gauges: () => Record<string, { help: string; value: number }>) {}

  request(route: string, method: string, status: number, seconds: number): void {
    const key = `route="${route}",method="${method}",status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    let series = this.durations.get(route);
    if (series === undefined) this.durations.set(route, (series = { counts: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 }));
    for (let index = 0; index < DURATION_BUCKETS.length; index++) if (seconds <= DURATION_BUCKETS[index]!) series.counts[index]! += 1;
    series.sum += seconds;
    series.count += 1;
  }

  render(): string {
    const lines: string[] = [];
    lines.push('# HELP loopguard_serve_http_requests_total HTTP requests answered, by route template, method and status.');
    lines.push('# TYPE loopguard_serve_http_requests_total counter');
    for (const [labels, value] of this.requests) lines.push(`loopguard_serve_http_requests_total{${labels}} ${value}`);
    lines.push('# HELP loopguard_serve_http_request_duration_seconds Time to answer a request, by route template.');
    lines.push('# TYPE loopguard_serve_http_request_duration_seconds histogram');
    for (const [route, series] of this.durations) {
      DURATION_BUCKETS.forEach((bound, index) => lines.push(`loopguard_serve_http_request_duration_seconds_bucket{route="${route}",le="${bound}"} ${series.counts[index]}`));
      lines.push(`loopguard_serve_http_request_duration_seconds_bucket{route="${route}",le="+Inf"} ${series.count}`);
      lines.push(`loopguard_serve_http_request_duration_seconds_sum{route="${route}"} ${series.sum}`);
      lines.push(`loopguard_serve_http_request_duration_seconds_count{route="${route}"} ${series.count}`);
    }
    const counter = (name: string, help: string, value: number): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`);
    };
    counter('loopguard_serve_otlp_spans_received_total', 'Spans received on /v1/traces.', this.spansReceived);
    counter('loopguard_serve_otlp_spans_rejected_total', 'Spans rejected on /v1/traces (reported as OTLP partial success).', this.spansRejected);
    counter('loopguard_serve_overloaded_total', 'Requests turned away with 429/503 and Retry-After because too many were in flight.', this.overloaded);
    const gauge = (name: string, help: string, value: number): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
    };
    gauge('loopguard_serve_requests_in_flight', 'Requests being answered now.', this.inFlight);
    for (const [name, { help, value }] of Object.entries(this.gauges())) gauge(name, help, value);
    return `${lines.join('\n')}\n`;
  }
}
