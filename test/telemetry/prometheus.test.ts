// The dashboard and the alert rules against a real Prometheus. Two agent services, each an
// app with its own engine and PrometheusExporter, drive guarded runs through the real engine;
// Prometheus scrapes both on loopback as two jobs. Every PromQL expression shipped in grafana/
// must return data for the service it is filtered to and none for another. The alert rules run
// in Prometheus' own rule engine: each fires per service (`job`), and the rate rules stay quiet
// below their minimum volume even when the share is above the threshold. A third service shares
// its runs through a real redis-server (loopguard/redis): idempotent writes prevented, then
// Redis crashed under it, for the shared-store panels and the store-error rule.
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
import type { LoopGuardEngineOptions, RunGuard } from '../../src/core/loop-guard.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { createLoopGuardTelemetry } from '../../src/telemetry/telemetry.js';
import type { LoopGuardTelemetry } from '../../src/telemetry/telemetry.js';
import { alertExpressions, dashboardExpressions, prometheusRuleGroup, substituteGrafanaVariables, thresholdExpr } from './artifacts.js';
import type { FoundExpr } from './artifacts.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';

const SCRAPE_SECONDS = 1;
/** Service A: a few runs (below the alert volumes). Service B: the busy one. */
const A = 'loopguard-app';
const B = 'busy-app';
/** Service C: runs shared through Redis (loopguard/redis), with a business-key write. */
const C = 'shared-app';
const GRAFANA_VARS = { range: '5m', rateInterval: '1m' };
/** Series only the Collector produces (spanmetrics connector): no data on the scrape path. */
const COLLECTOR_ONLY = /\btraces_span_metrics_/;

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

/** One agent service: an engine, its telemetry and the PrometheusExporter Prometheus scrapes. */
interface App {
  job: string;
  port: number;
  guard: LoopGuard;
  meterProvider: MeterProvider;
  telemetry: LoopGuardTelemetry;
}

async function startApp(job: string, options: LoopGuardEngineOptions, extraToolNames: string[] = []): Promise<App> {
  const port = await freePort();
  const exporter = new PrometheusExporter({ host: '127.0.0.1', port, preventServerStart: true });
  await exporter.startServer();
  const meterProvider = new MeterProvider({ readers: [exporter] });
  const guard = new LoopGuard({ logger: { warn: () => {} }, ...options });
  // The tools are named up front, so their series exist at 0 before the first call and rate()
  // counts every call (the README's advice for tools not named in the policy).
  const telemetry = createLoopGuardTelemetry({ guard, meterProvider, toolNames: ['search', 'fetch_page', 'lookup', ...extraToolNames] });
  return { job, port, guard, meterProvider, telemetry };
}

/** One round: a model call and one tool call with the given arguments and result. */
function round(run: RunGuard, tool: string, args: unknown, result: unknown, tokens?: number): void {
  run.beginRound(tokens ? { inputTokens: tokens, outputTokens: Math.round(tokens / 10) } : undefined);
  const ticket = run.startCall({ tool, args });
  if (ticket.decision.action === 'allow') run.finishCall(ticket, { result });
}

/** Reworded queries that bring back the same documents, until the guard stops the run. */
function loopUntilStopped(run: RunGuard): void {
  for (let i = 0; i < 10 && run.shouldStop().action !== 'stop'; i++) {
    round(run, 'search', { q: `reworded ${i}` }, { docs: ['same-1', 'same-2'] }, 300);
  }
  expect(run.stopped?.reason).to.equal('stale_rounds');
}

describe('dashboard and alert rules against a real Prometheus', function () {
  this.timeout(120_000);

  const bin = prometheusBinary();
  let prometheus: ChildProcess | undefined;
  let promLog = '';
  let promUrl = '';
  let tmp = '';
  const apps: App[] = [];
  let a: App;
  let b: App;
  let c: App;
  let redis: RedisServer | undefined;
  /** Set while the test has Redis down, so `after` starts it again before stopping it. */
  let redisCrashed = false;

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

  /** Instant query result as job -> value. */
  async function byJob(q: string): Promise<Record<string, number>> {
    const data = await query(q);
    const out: Record<string, number> = {};
    for (const r of data.result as { metric: Record<string, string>; value: [number, string] }[]) out[r.metric.job ?? ''] = Number(r.value[1]);
    return out;
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

  /** Lets Prometheus take `n` more scrapes of both apps, so rate() windows hold several samples. */
  async function moreScrapes(n: number): Promise<void> {
    const q = `min(count_over_time(loopguard_runs_open[10m]))`;
    const start = (await samples(q))[0] ?? 0;
    expect(await waitFor(q, (v) => (v[0] ?? 0) >= start + n), `${n} more scrapes`).to.equal(true);
  }

  /** Waits until Prometheus has scraped `value` for `q`, then lets the rules run over it. */
  async function settle(q: string, value: number): Promise<void> {
    expect(await waitFor(q, (v) => v[0] === value), `${q} reaches ${value}`).to.equal(true);
    await moreScrapes(3);
    // Rules are evaluated every second; give the engine two rounds over the settled data.
    await sleep(2_500);
  }

  /** The jobs for which Prometheus' rule engine has `rule` firing now. */
  async function firingFor(rule: string): Promise<string[]> {
    const data: { alerts: { labels: Record<string, string>; state: string }[] } = await api('/api/v1/alerts', {});
    return data.alerts.filter((x) => x.state === 'firing' && x.labels.alertname === rule).map((x) => x.labels.job ?? '(no job label)').sort();
  }

  async function waitFiring(rule: string, job: string, ms = 15_000): Promise<string[]> {
    const deadline = Date.now() + ms;
    let jobs: string[] = [];
    while (Date.now() < deadline && !(jobs = await firingFor(rule)).includes(job)) await sleep(250);
    return jobs;
  }

  const rule = (uid: string): FoundExpr => {
    const found = alertExpressions().find((e) => e.ruleUid === uid && e.threshold);
    expect(found, `rule ${uid} with a threshold`).to.not.equal(undefined);
    return found!;
  };
  /** The rule's query (no threshold), per job. */
  const ruleQuery = (uid: string): Promise<Record<string, number>> => byJob(rule(uid).expr);
  /** The rule's query with its threshold, per job: where Grafana would fire. */
  const ruleFiring = (uid: string): Promise<Record<string, number>> => byJob(thresholdExpr(rule(uid).expr, rule(uid).threshold!));

  async function evaluate(found: FoundExpr, service: string): Promise<number> {
    if (found.labelValues) {
      const metric = substituteGrafanaVariables(found.labelValues.metric, { ...GRAFANA_VARS, service });
      const values: string[] = await api(`/api/v1/label/${found.labelValues.label}/values`, { 'match[]': metric });
      return values.length;
    }
    const expr = substituteGrafanaVariables(found.expr, { ...GRAFANA_VARS, service });
    if (found.range) {
      // As Grafana asks for a time series panel: the last minute, one point per second.
      const end = Date.now() / 1000;
      const data = await api('/api/v1/query_range', { query: expr, start: String(end - 60), end: String(end), step: '1' });
      return (data.result as { values: unknown[] }[]).filter((series) => series.values.length > 0).length;
    }
    const data = await query(expr);
    return data.resultType === 'scalar' ? 1 : (data.result as unknown[]).length;
  }

  before(async function () {
    if (!bin) {
      if (process.env.CI) throw new Error('the prometheus binary is missing: .ci/run installs it (apt-get install prometheus)');
      console.log('    (skipped: no `prometheus` binary on PATH; `apt-get install prometheus` or set PROMETHEUS_BIN)');
      this.skip();
    }

    a = await startApp(A, { profile: 'researcher', staleRounds: 3, escalation: { enabled: false } });
    // B caps open runs at 4, so holding runs open evicts the idlest.
    b = await startApp(B, { profile: 'researcher', staleRounds: 3, escalation: { enabled: false }, maxOpenRuns: 4 });
    // C shares its runs through a real Redis; its store gives up on a command after 300 ms.
    redis = await startRedisServer({ appendOnly: true });
    const store = createRedisRunStore({ client: await redis.client(), keyPrefix: 'prometheus-test', timeoutMs: 300 });
    c = await startApp(C, { profile: 'researcher', store, idempotentWrites: { send_email: { key: ['to', 'subject'] } } }, ['send_email']);
    apps.push(a, b, c);

    tmp = mkdtempSync(join(tmpdir(), 'loopguard-prom-'));
    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    // The Grafana rules also run as Prometheus alerting rules (expression + threshold, no
    // `for`), so Prometheus' own rule engine says whether each would fire right now, per job.
    writeFileSync(
      join(tmp, 'rules.yml'),
      JSON.stringify({ groups: [prometheusRuleGroup({ name: 'loopguard-grafana-rules', interval: `${SCRAPE_SECONDS}s`, withFor: false })] }),
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
        ...apps.flatMap((app) => [`  - job_name: ${app.job}`, '    static_configs:', `      - targets: ['127.0.0.1:${app.port}']`]),
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
    for (const app of apps) {
      const up = await waitFor(`up{job="${app.job}"}`, (v) => v[0] === 1);
      expect(up, `prometheus scrapes ${app.job}'s PrometheusExporter\n${promLog}`).to.equal(true);
    }
  });

  after(async () => {
    for (const app of apps) app.telemetry.shutdown();
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus!.once('exit', r));
      prometheus.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      if (prometheus.exitCode === null) prometheus.kill('SIGKILL');
    }
    for (const app of apps) await app.meterProvider.shutdown();
    if (redis) {
      if (redisCrashed) await redis.restart();
      await redis.stop();
    }
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('below the minimum volume no rule fires, though the stop and refusal shares are above their thresholds', async () => {
    // Healthy, still open: every round brings something new.
    const healthy = a.guard.startRun('healthy');
    for (let i = 0; i < 3; i++) round(healthy, 'search', { q: `topic ${i}` }, { docs: [`doc-${i}`] }, 200);

    // Refusals: the model asks four more times for what it already has (not yet a stop).
    const refuser = a.guard.startRun('refuser');
    for (let i = 0; i < 5; i++) round(refuser, 'fetch_page', { url: 'https://example.test/a' }, { text: 'A' }, 150);
    expect(refuser.shouldStop().action).to.equal('continue');
    a.guard.endRun('refuser');

    // A stop: reworded queries, the same documents, until the guard ends it.
    loopUntilStopped(a.guard.startRun('looper'));
    a.guard.endRun('looper');
    expect(a.guard.stats()).to.deep.equal({ openRuns: 1, runsAtRisk: 0 });

    await settle(`sum(loopguard_run_stops_total{job="${A}"})`, 1);

    // 1 of 3 runs stopped (33 % > 20 %) and 4 of 12 calls refused (33 % > 25 %) ...
    const stopShare = await byJob('sum by (job) (increase(loopguard_run_stops_total[15m])) / sum by (job) (increase(loopguard_runs_started_total[15m]))');
    expect(stopShare[A]).to.be.within(0.3, 0.37);
    const refusedShare = await byJob('sum by (job) (increase(loopguard_refusals_total[10m])) / sum by (job) (increase(loopguard_tool_calls_total[10m]))');
    expect(refusedShare[A]).to.be.within(0.3, 0.37);
    // ... but 3 runs and 12 calls are below the volumes (10 runs, 20 calls): the rules' queries
    // return nothing for the service, so Grafana sees no data (state OK) and nothing fires.
    expect(await ruleQuery('loopguard-stop-rate-spike')).to.deep.equal({});
    expect(await ruleQuery('loopguard-refusal-rate-spike')).to.deep.equal({});
    expect(await firingFor('loopguard-stop-rate-spike')).to.deep.equal([]);
    expect(await firingFor('loopguard-refusal-rate-spike')).to.deep.equal([]);

    // The stalled-run rule is per service too, and quiet while only healthy runs are open.
    expect(await ruleQuery('loopguard-stalled-runs')).to.deep.equal({ [A]: 0, [B]: 0, [C]: 0 });
    expect(await firingFor('loopguard-stalled-runs')).to.deep.equal([]);
  });

  it('the stalled-run rule fires for the service with a run that keeps bringing back the same results', async () => {
    const stalled = a.guard.startRun('stalled');
    round(stalled, 'search', { q: 'first' }, { docs: ['x'] }, 250);
    round(stalled, 'search', { q: 'second' }, { docs: ['x'] }, 250);
    round(stalled, 'search', { q: 'third' }, { docs: ['x'] }, 250);
    stalled.beginRound({ inputTokens: 250 }); // closes round 3: new, stale, stale
    expect(stalled.shouldStop().action).to.equal('continue');
    expect(a.guard.stats().runsAtRisk).to.equal(1);

    expect(await waitFiring('loopguard-stalled-runs', A), 'Prometheus fires the stalled-run rule for A only').to.deep.equal([A]);
    expect(await ruleFiring('loopguard-stalled-runs')).to.deep.equal({ [A]: 1 });
  });

  it('the stop-rate rule fires per service once the volume is there and the share is above 20 %', async () => {
    // B: 11 healthy runs and 1 stopped: above the volume, 8 % stopped, below the threshold.
    for (let i = 0; i < 11; i++) {
      const run = b.guard.startRun(`ok-${i}`);
      round(run, 'search', { q: `question ${i}` }, { docs: [`answer-${i}`] }, 100);
      b.guard.endRun(`ok-${i}`);
    }
    loopUntilStopped(b.guard.startRun('b-looper-0'));
    b.guard.endRun('b-looper-0');
    await settle(`sum(loopguard_runs_started_total{job="${B}"})`, 12);
    const volumeMet = await ruleQuery('loopguard-stop-rate-spike');
    expect(Object.keys(volumeMet), 'only B has the volume').to.deep.equal([B]);
    expect(volumeMet[B]).to.be.within(0.05, 0.12);
    expect(await firingFor('loopguard-stop-rate-spike')).to.deep.equal([]);

    // 4 more runs stopped: 5 of 16 (31 %).
    for (let i = 1; i <= 4; i++) {
      loopUntilStopped(b.guard.startRun(`b-looper-${i}`));
      b.guard.endRun(`b-looper-${i}`);
    }
    expect(await waitFiring('loopguard-stop-rate-spike', B), 'fires for B, not for A (3 runs, 1 stop)').to.deep.equal([B]);
    const share = await ruleQuery('loopguard-stop-rate-spike');
    expect(share[B]).to.be.within(0.28, 0.34);
  });

  it('the refusal-rate rule fires for the service whose model keeps asking for what it has', async () => {
    // A reaches 20+ calls, 17 of them refused.
    const insistent = a.guard.startRun('insistent');
    round(insistent, 'fetch_page', { url: 'https://example.test/c' }, { text: 'C' });
    for (let i = 0; i < 12; i++) round(insistent, 'fetch_page', { url: 'https://example.test/c' }, { text: 'C' });
    // B made more calls than A, none refused: the rule stays quiet for B.
    expect(await waitFiring('loopguard-refusal-rate-spike', A)).to.deep.equal([A]);
    const share = await ruleQuery('loopguard-refusal-rate-spike');
    expect(Object.keys(share).sort()).to.deep.equal([A, B].sort());
    expect(share[B]).to.equal(0);
    expect(share[C], 'C has too few calls yet').to.equal(undefined);
  });

  it('observe-only refusals show as would_refuse, apart from refusals; evictions show by cause', async () => {
    // Spans another instrumentation made: the guard decides, nothing enforces, the call runs.
    const observer = b.guard.startRun('observer');
    for (let i = 0; i < 4; i++) {
      observer.beginRound();
      const ticket = observer.startCall({ tool: 'lookup', argsHash: 'same-args', observeOnly: true });
      observer.finishCall(ticket, { result: 'same result' });
    }
    b.guard.endRun('observer');

    // Four runs held open fill B's maxOpenRuns (4); each further run evicts the idlest.
    for (let i = 0; i < 5; i++) b.guard.startRun(`held-${i}`);
    await settle(`sum(loopguard_runs_evicted_total{job="${B}"})`, 1);
    for (let i = 5; i < 8; i++) b.guard.startRun(`held-${i}`);
    await settle(`sum(loopguard_runs_evicted_total{job="${B}"})`, 4);

    const panel = (title: string): FoundExpr[] => dashboardExpressions().filter((e) => e.where.includes(`panel "${title}"`));
    const instant = async (e: FoundExpr): Promise<PromResult['result']> =>
      (await query(substituteGrafanaVariables(e.expr, { ...GRAFANA_VARS, service: B }))).result;

    // "Tool calls by decision": would_refuse is its own series; B has no enforced refusal.
    const [byDecision] = panel('Tool calls by decision');
    const decisions = await instant({ ...byDecision!, expr: byDecision!.expr.replace('$__rate_interval', '5m') });
    const rate = Object.fromEntries((decisions as any[]).map((r) => [r.metric.loopguard_decision, Number(r.value[1])]));
    expect(rate.would_refuse, 'would_refuse rate').to.be.greaterThan(0);
    expect(rate.refuse, 'no enforced refusal on B').to.equal(0);
    // "Would refuse" counts them; "Refused share" does not.
    const [wouldRefuse] = panel('Would refuse');
    expect(Number((await instant(wouldRefuse!) as any[])[0].value[1])).to.be.within(2.9, 3.3);
    const [refusedShare] = panel('Refused share');
    expect(Number((await instant(refusedShare!) as any[])[0].value[1])).to.equal(0);
    const [topTools, , wouldRefuseByTool] = panel('Top looping tools');
    expect(topTools).to.not.equal(undefined);
    const byTool = (await instant(wouldRefuseByTool!)) as any[];
    expect(byTool.find((r) => r.metric.gen_ai_tool_name === 'lookup')?.value[1]).to.not.equal(undefined);

    // "Runs evicted by cause". The counter starts at 0 for every cause, so increase() sees the
    // first eviction too: all 4 are counted, and the idle cause shows as a zero series.
    const [byCause] = panel('Runs evicted by cause');
    const causes = (await instant({ ...byCause!, expr: byCause!.expr.replace('$__rate_interval', '5m') })) as any[];
    const byCauseValue = Object.fromEntries(causes.map((r) => [r.metric.loopguard_eviction_cause, Number(r.value[1])]));
    expect(byCauseValue.max_open_runs, 'every eviction counted').to.be.at.least(3.9);
    expect(byCauseValue.max_idle ?? 0).to.equal(0);
    const [evicted] = panel('Runs evicted');
    expect(Number((await instant(evicted!) as any[])[0].value[1])).to.be.at.least(3.9);
  });

  it('the shared-store panels show the idempotent writes prevented and a Redis outage by operation; the store-error rule fires for that service only', async () => {
    const panel = (title: string): FoundExpr[] => dashboardExpressions().filter((e) => e.where.includes(`panel "${title}"`));
    /** A panel query as Grafana sends it for `service`, over the last 5 minutes, as label value -> number. */
    const panelValues = async (title: string, service: string, label: string): Promise<Record<string, number>> => {
      const [found] = panel(title);
      expect(found, `panel "${title}"`).to.not.equal(undefined);
      const expr = substituteGrafanaVariables(found!.expr.replaceAll('$__rate_interval', '5m'), { ...GRAFANA_VARS, service });
      const result = (await query(expr)).result as { metric: Record<string, string>; value: [number, string] }[];
      return Object.fromEntries(result.map((r) => [r.metric[label] ?? '', Number(r.value[1])]));
    };

    // Three workers' runs send the same email (reworded): it goes out once, twice it is prevented.
    const email = { to: 'customer@example.com', subject: 'Your refund' };
    const decisions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const run = c.guard.startRun(`mailer-${i}`);
      run.beginRound();
      const ticket = await run.claimCall({ tool: 'send_email', args: { ...email, body: `wording ${i}` } });
      decisions.push(ticket.decision.action === 'refuse' ? ticket.decision.reason : ticket.decision.action);
      run.finishCall(ticket, { result: { messageId: `m-${i}` } });
      await c.guard.flush();
      c.guard.endRun(`mailer-${i}`);
    }
    expect(decisions).to.deep.equal(['allow', 'write.already_done', 'write.already_done']);

    // Then Redis crashes under C: its calls fail open (decided locally), a new email fails closed.
    await redis!.crash();
    redisCrashed = true;
    const during = c.guard.startRun('during-outage');
    for (let i = 0; i < 12; i++) {
      during.beginRound();
      const ticket = await during.claimCall({ tool: 'search', args: { q: `outage ${i}` } });
      expect(ticket.decision.action, 'ordinary calls fail open').to.equal('allow');
      during.finishCall(ticket, { result: [`doc-${i}`] });
    }
    const write = await during.claimCall({ tool: 'send_email', args: { to: 'ops@example.com', subject: 'Outage' } });
    expect(write.decision.action === 'refuse' && write.decision.reason, 'business-key writes fail closed').to.equal('store.unavailable');
    await c.guard.flush();

    // Prometheus' rule engine fires the store-error rule for C, not for A or B (their series are 0).
    expect(await waitFiring('loopguard-store-errors', C), 'fires for the service whose Redis is down').to.deep.equal([C]);
    const perMinute = await ruleQuery('loopguard-store-errors');
    expect(perMinute[A]).to.equal(0);
    expect(perMinute[B]).to.equal(0);
    expect(perMinute[C]).to.be.greaterThan(2);
    await moreScrapes(2);

    // "Shared store errors": C's failures by operation; every operation is a series from the start.
    const errorsC = await panelValues('Shared store errors', C, 'loopguard_store_operation');
    expect(Object.keys(errorsC).sort()).to.deep.equal(['append', 'business_key', 'claim', 'read']);
    expect(errorsC.claim, 'one failed claim per call').to.be.greaterThan(0);
    expect(errorsC.business_key, 'the email\'s key claim').to.be.greaterThan(0);
    expect(Object.values(await panelValues('Shared store errors', A, 'loopguard_store_operation'))).to.deep.equal([0, 0, 0, 0]);

    // "Idempotent writes prevented": the two duplicate emails, on the tool that made them.
    const prevented = await panelValues('Idempotent writes prevented', C, 'gen_ai_tool_name');
    expect(prevented.send_email, 'both duplicates counted (the series started at 0)').to.be.within(1.9, 2.3);
    expect(prevented.search).to.equal(0);
    expect(Object.values(await panelValues('Idempotent writes prevented', B, 'gen_ai_tool_name')).every((v) => v === 0)).to.equal(true);

    // "Refused: store unavailable": the email the outage refused.
    const unavailable = await panelValues('Refused: store unavailable', C, 'gen_ai_tool_name');
    expect(unavailable.send_email).to.be.within(0.9, 1.2);
    expect(unavailable.search, 'ordinary calls failed open, none refused').to.equal(0);

    // As Grafana asks for the time series panels, each returns data for C.
    for (const title of ['Shared store errors', 'Idempotent writes prevented', 'Refused: store unavailable']) {
      expect(await evaluate(panel(title)[0]!, C), title).to.be.greaterThan(0);
    }

    await redis!.restart();
    redisCrashed = false;
  });

  it('every dashboard expression returns data for its service and none for another; every alert expression returns data', async () => {
    await moreScrapes(3);
    const dashboard = dashboardExpressions().filter((e) => !e.where.endsWith('variable $service'));
    expect(dashboard.length).to.be.greaterThan(20);
    const problems: string[] = [];
    for (const found of dashboard) {
      const [own, other] = await Promise.all([evaluate(found, B), evaluate(found, 'no-such-service')]).catch((error: Error) => {
        problems.push(`${found.where}: ${error.message}`);
        return [-1, -1];
      });
      if (other > 0) problems.push(`${found.where}: data for a service that does not exist: ${found.expr}`);
      // Spanmetrics series come from the Collector only: their queries must parse and run.
      if (COLLECTOR_ONLY.test(found.expr)) continue;
      if (own === 0) problems.push(`${found.where}: no data for ${B}: ${found.expr}`);
    }
    for (const found of alertExpressions()) {
      if ((await evaluate(found, B).catch(() => 0)) === 0) problems.push(`${found.where}: no data for ${found.expr}`);
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
    // The service picker lists both services.
    const service = dashboardExpressions().find((e) => e.where.endsWith('variable $service'))!;
    const values: string[] = await api(`/api/v1/label/${service.labelValues!.label}/values`, { 'match[]': service.labelValues!.metric });
    expect(values).to.include.members([A, B]);
  });

  it('the app exposes the series under the names the README lists', async () => {
    const names: string[] = await api('/api/v1/label/__name__/values', { 'match[]': `{job="${A}"}` });
    const { PROMETHEUS_METRICS } = await import('../../src/telemetry/names.js');
    expect(names).to.include.members(Object.values(PROMETHEUS_METRICS));
    const evictions: string[] = await api('/api/v1/label/loopguard_eviction_cause/values', { 'match[]': `loopguard_runs_evicted_total{job="${B}"}` });
    // Both causes exist from the start (counters start at 0), whatever has happened yet.
    expect(evictions).to.deep.equal(['max_idle', 'max_open_runs']);
    // The store-error counter exists for every operation in an app without a store too (A).
    const operations: string[] = await api('/api/v1/label/loopguard_store_operation/values', { 'match[]': `loopguard_store_errors_total{job="${A}"}` });
    expect(operations).to.deep.equal(['append', 'business_key', 'claim', 'read']);
    const labels: string[] = await api('/api/v1/labels', { 'match[]': '{__name__=~"loopguard_.*"}' });
    for (const forbidden of ['loopguard_run_id', 'gen_ai_tool_call_arguments', 'gen_ai_tool_call_id']) expect(labels).to.not.include(forbidden);
  });
});
