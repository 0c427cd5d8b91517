// The dashboard and the alert rules against a real Prometheus: the app's PrometheusExporter
// serves the metrics of guarded runs driven through the real engine, Prometheus scrapes it on
// loopback, and every PromQL expression shipped in grafana/ must return data. The stalled-run
// alert's expression, with its threshold, must fire for a stalled run and stay quiet for a
// healthy one.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

import { LoopGuard } from '../../src/core/loop-guard.js';
import type { RunGuard } from '../../src/core/loop-guard.js';
import { createLoopGuardTelemetry } from '../../src/telemetry/telemetry.js';
import type { LoopGuardTelemetry } from '../../src/telemetry/telemetry.js';
import { alertExpressions, dashboardExpressions, substituteGrafanaVariables, thresholdExpr } from './artifacts.js';
import type { FoundExpr } from './artifacts.js';

const SCRAPE_SECONDS = 1;
const GRAFANA_VARS = { range: '5m', rateInterval: '1m' };

function prometheusBinary(): string | undefined {
  const bin = process.env.PROMETHEUS_BIN ?? 'prometheus';
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return probe.error ? undefined : bin;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface PromResult {
  resultType: string;
  result: { metric: Record<string, string>; value: [number, string] }[] | [number, string];
}

/** One round: a model call and one tool call with the given arguments and result. */
function round(run: RunGuard, tool: string, args: unknown, result: unknown, tokens?: number): void {
  run.beginRound(tokens ? { inputTokens: tokens, outputTokens: Math.round(tokens / 10) } : undefined);
  const ticket = run.startCall({ tool, args });
  if (ticket.decision.action === 'allow') run.finishCall(ticket, { result });
}

describe('dashboard and alert rules against a real Prometheus', function () {
  this.timeout(120_000);

  const bin = prometheusBinary();
  let prometheus: ChildProcess | undefined;
  let promLog = '';
  let promUrl = '';
  let tmp = '';
  let exporter: PrometheusExporter | undefined;
  let meterProvider: MeterProvider | undefined;
  let telemetry: LoopGuardTelemetry | undefined;
  let guard: LoopGuard;

  async function api(path: string, params: Record<string, string | string[]>): Promise<any> {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const one of [v].flat()) qs.append(k, one);
    const res = await fetch(`${promUrl}${path}?${qs}`);
    const body = (await res.json()) as { status: string; data: any; error?: string };
    if (body.status !== 'success') throw new Error(`${path} ${JSON.stringify(params)}: ${body.error}`);
    return body.data;
  }

  const query = (q: string): Promise<PromResult> => api('/api/v1/query', { query: q });

  async function samples(q: string): Promise<number[]> {
    const data = await query(q);
    if (data.resultType === 'scalar') return [Number((data.result as [number, string])[1])];
    return (data.result as { value: [number, string] }[]).map((r) => Number(r.value[1]));
  }

  /** Waits until `q` returns a sample satisfying `ok`; returns false at the deadline. */
  async function waitFor(q: string, ok: (values: number[]) => boolean, ms = 20_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (ok(await samples(q).catch(() => []))) return true;
      await sleep(250);
    }
    return false;
  }

  /** Lets Prometheus take `n` more scrapes of the app, so rate() windows hold several samples. */
  async function moreScrapes(n: number): Promise<void> {
    const count = async (): Promise<number> =>
      (await samples(`count_over_time(loopguard_runs_open{job="loopguard-app"}[10m])`))[0] ?? 0;
    const start = await count();
    expect(await waitFor(`count_over_time(loopguard_runs_open{job="loopguard-app"}[10m])`, (v) => (v[0] ?? 0) >= start + n), `${n} more scrapes`).to.equal(true);
  }

  async function evaluate(found: FoundExpr): Promise<number> {
    if (found.labelValues) {
      const values: string[] = await api(`/api/v1/label/${found.labelValues.label}/values`, { 'match[]': found.labelValues.metric });
      return values.length;
    }
    const expr = substituteGrafanaVariables(found.expr, GRAFANA_VARS);
    if (found.range) {
      // As Grafana asks for a time series panel: the last minute, one point per second.
      const end = Date.now() / 1000;
      const data = await api('/api/v1/query_range', { query: expr, start: String(end - 60), end: String(end), step: '1' });
      return (data.result as { values: unknown[] }[]).filter((series) => series.values.length > 0).length;
    }
    const data = await query(expr);
    return data.resultType === 'scalar' ? 1 : (data.result as unknown[]).length;
  }

  const stalledRule = (): FoundExpr => {
    const rule = alertExpressions().find((e) => e.ruleUid === 'loopguard-stalled-runs');
    expect(rule?.threshold, 'stalled-runs rule has a threshold').to.not.equal(undefined);
    return rule!;
  };
  const stalledFiring = async (): Promise<number> => {
    const rule = stalledRule();
    return (await samples(thresholdExpr(substituteGrafanaVariables(rule.expr, GRAFANA_VARS), rule.threshold!))).length;
  };

  /** Names of the alerts Prometheus' rule engine has firing now. */
  async function firingAlerts(): Promise<string[]> {
    const data: { alerts: { labels: { alertname: string }; state: string }[] } = await api('/api/v1/alerts', {});
    return data.alerts.filter((a) => a.state === 'firing').map((a) => a.labels.alertname);
  }

  before(async function () {
    if (!bin) {
      if (process.env.CI) throw new Error('the prometheus binary is missing: .ci/run installs it (apt-get install prometheus)');
      console.log('    (skipped: no `prometheus` binary on PATH; `apt-get install prometheus` or set PROMETHEUS_BIN)');
      this.skip();
    }

    const appPort = await freePort();
    exporter = new PrometheusExporter({ host: '127.0.0.1', port: appPort, preventServerStart: true });
    await exporter.startServer();
    meterProvider = new MeterProvider({ readers: [exporter] });
    guard = new LoopGuard({ profile: 'researcher', staleRounds: 3, escalation: { enabled: false } });
    telemetry = createLoopGuardTelemetry({ guard, meterProvider });

    tmp = mkdtempSync(join(tmpdir(), 'loopguard-prom-'));
    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    // The Grafana rules also run as Prometheus alerting rules (expression + threshold, no
    // `for`), so Prometheus' own rule engine says whether each would fire right now.
    const rules = alertExpressions().filter((e) => e.threshold);
    writeFileSync(
      join(tmp, 'rules.yml'),
      JSON.stringify({
        groups: [{ name: 'loopguard-grafana-rules', interval: `${SCRAPE_SECONDS}s`, rules: rules.map((e) => ({ alert: e.ruleUid, expr: thresholdExpr(e.expr, e.threshold!) })) }],
      }),
    );
    writeFileSync(
      join(tmp, 'prometheus.yml'),
      [
        'global:',
        `  scrape_interval: ${SCRAPE_SECONDS}s`,
        `  evaluation_interval: ${SCRAPE_SECONDS}s`,
        'rule_files:',
        `  - ${JSON.stringify(join(tmp, 'rules.yml'))}`,
        'scrape_configs:',
        '  - job_name: loopguard-app',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${appPort}']`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      bin!,
      [
        `--config.file=${join(tmp, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(tmp, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (d) => (promLog += d));
    prometheus.stderr!.on('data', (d) => (promLog += d));

    const deadline = Date.now() + 30_000;
    for (;;) {
      if (prometheus.exitCode !== null) throw new Error(`prometheus exited (${prometheus.exitCode}):\n${promLog}`);
      const ready = await fetch(`${promUrl}/-/ready`).then((r) => r.ok, () => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`prometheus not ready after 30s:\n${promLog}`);
      await sleep(200);
    }
    const up = await waitFor('up{job="loopguard-app"}', (v) => v[0] === 1);
    expect(up, `prometheus scrapes the app's PrometheusExporter\n${promLog}`).to.equal(true);
  });

  after(async () => {
    telemetry?.shutdown();
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus!.once('exit', r));
      prometheus.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      if (prometheus.exitCode === null) prometheus.kill('SIGKILL');
    }
    await meterProvider?.shutdown();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('the stalled-run alert stays quiet while runs are healthy (refusals and a stop included)', async () => {
    // Healthy, still open: every round brings something new.
    const healthy = guard.startRun('healthy');
    for (let i = 0; i < 3; i++) round(healthy, 'search', { q: `topic ${i}` }, { docs: [`doc-${i}`] }, 200);

    // Refusals: the model asks again for what it already has.
    const refuser = guard.startRun('refuser');
    round(refuser, 'fetch_page', { url: 'https://example.test/a' }, { text: 'A' }, 150);
    round(refuser, 'fetch_page', { url: 'https://example.test/a' }, { text: 'A' }, 150);
    round(refuser, 'fetch_page', { url: 'https://example.test/b' }, { text: 'B' }, 150);
    refuser.shouldStop();
    guard.endRun('refuser');

    // A stop: reworded queries, the same documents, until the guard ends it.
    const looper = guard.startRun('looper');
    for (let i = 0; i < 10 && looper.shouldStop().action !== 'stop'; i++) {
      round(looper, 'search', { q: `reworded ${i}` }, { docs: ['same-1', 'same-2'] }, 300);
    }
    expect(looper.stopped?.reason).to.equal('stale_rounds');
    guard.endRun('looper');
    expect(guard.stats()).to.deep.equal({ openRuns: 1, runsAtRisk: 0 });

    expect(await waitFor('sum(loopguard_run_stops_total)', (v) => v[0] === 1), 'the stop reaches Prometheus').to.equal(true);
    await moreScrapes(3);
    expect(await samples(substituteGrafanaVariables(stalledRule().expr, GRAFANA_VARS))).to.deep.equal([0]);
    expect(await stalledFiring(), 'stalled-run alert with only healthy runs open').to.equal(0);
    // Rules are evaluated every second; give the engine two rounds over the settled data.
    await sleep(2_500);
    const firing = await firingAlerts();
    expect(firing).to.not.include('loopguard-stalled-runs');
    expect(firing, '1 of 3 runs stopped is above the 20 % stop-rate threshold').to.include('loopguard-stop-rate-spike');
    expect(firing, 'about 1 call in 10 refused is below the 25 % refusal threshold').to.not.include('loopguard-refusal-rate-spike');
  });

  it('the stalled-run alert fires for a run that keeps bringing back the same results', async () => {
    const stalled = guard.startRun('stalled');
    round(stalled, 'search', { q: 'first' }, { docs: ['x'] }, 250);
    round(stalled, 'search', { q: 'second' }, { docs: ['x'] }, 250);
    round(stalled, 'search', { q: 'third' }, { docs: ['x'] }, 250);
    stalled.beginRound({ inputTokens: 250 }); // closes round 3: new, stale, stale
    expect(stalled.shouldStop().action).to.equal('continue');
    expect(guard.stats().runsAtRisk).to.equal(1);

    const deadline = Date.now() + 20_000;
    let firing = 0;
    while (Date.now() < deadline && (firing = await stalledFiring()) === 0) await sleep(250);
    expect(firing, 'stalled-run alert expression with a stalled run open').to.equal(1);
    const alertDeadline = Date.now() + 10_000;
    let alerts: string[] = [];
    while (Date.now() < alertDeadline && !(alerts = await firingAlerts()).includes('loopguard-stalled-runs')) await sleep(250);
    expect(alerts, 'Prometheus fires the stalled-run rule').to.include('loopguard-stalled-runs');
  });

  it('the refusal-rate rule fires when the model keeps asking for what it has', async () => {
    // A tool the service has called before: its series exist, so every refusal counts.
    const insistent = guard.startRun('insistent');
    round(insistent, 'fetch_page', { url: 'https://example.test/c' }, { text: 'C' });
    for (let i = 0; i < 12; i++) round(insistent, 'fetch_page', { url: 'https://example.test/c' }, { text: 'C' });
    const deadline = Date.now() + 15_000;
    let alerts: string[] = [];
    while (Date.now() < deadline && !(alerts = await firingAlerts()).includes('loopguard-refusal-rate-spike')) await sleep(250);
    expect(alerts).to.include('loopguard-refusal-rate-spike');
  });

  it('every PromQL expression in the dashboards and alert rules returns data', async () => {
    await moreScrapes(3);
    const all = [...dashboardExpressions(), ...alertExpressions()];
    expect(all.length).to.be.greaterThan(15);
    const empty: string[] = [];
    for (const found of all) {
      const n = await evaluate(found).catch((error: Error) => {
        empty.push(`${found.where}: ${error.message}`);
        return -1;
      });
      if (n === 0) empty.push(`${found.where}: no data for ${found.expr}`);
    }
    expect(empty, empty.join('\n')).to.deep.equal([]);
  });

  it('the app exposes the series under the names the README lists', async () => {
    const names: string[] = await api('/api/v1/label/__name__/values', { 'match[]': '{job="loopguard-app"}' });
    const { PROMETHEUS_METRICS } = await import('../../src/telemetry/names.js');
    expect(names).to.include.members(Object.values(PROMETHEUS_METRICS));
    const labels: string[] = await api('/api/v1/labels', { 'match[]': '{__name__=~"loopguard_.*"}' });
    for (const forbidden of ['loopguard_run_id', 'gen_ai_tool_call_arguments', 'gen_ai_tool_call_id']) expect(labels).to.not.include(forbidden);
  });
});
