// The compose stack, the Collector config and the Grafana provisioning cannot run here (no
// Docker engine), so they are checked for what breaks them in practice: references to services,
// ports, pipeline components and datasource uids that do not exist.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';

import { prometheusName, METRIC_RUN_STOP_EVENTS, METRIC_RUNS_EVICTED, METRIC_STORE_ERRORS, PROMETHEUS_METRICS } from '../../src/telemetry/names.js';
import { freePort } from '../helpers/redis-servers.js';
import {
  ROOT,
  alertExpressions,
  alertRules,
  alertingFiles,
  allPanels,
  dashboardExpressions,
  dashboardFiles,
  datasourceFiles,
  prometheusRuleGroup,
  readJson,
  readYaml,
} from './artifacts.js';

const compose = readYaml('docker-compose.yml');
const collector = readYaml('collector/otel-collector.yaml');
const services: Record<string, any> = compose.services;

/** Host and port of `host:port`, `http://host:port/...` or `0.0.0.0:port`. */
function hostPort(endpoint: string): { host: string; port: number } {
  const m = /^(?:[a-z]+:\/\/)?([^:/]+):(\d+)/.exec(endpoint);
  if (!m) throw new Error(`no host:port in ${endpoint}`);
  return { host: m[1]!, port: Number(m[2]) };
}

/** Container ports a compose service listens on for other services. */
function containerPorts(name: string): Set<number> {
  const s = services[name];
  const ports = new Set<number>();
  for (const p of [...(s.ports ?? []), ...(s.expose ?? [])]) {
    const parts = String(p).split('/')[0]!.split(':');
    ports.add(Number(parts[parts.length - 1]));
  }
  return ports;
}

/** Host path of a compose bind mount mounted at `target`, resolved in the repo. */
function mountSource(service: string, target: string): string | undefined {
  for (const v of services[service].volumes ?? []) {
    const [src, dst] = String(v).split(':');
    if (dst === target) return src;
  }
  return undefined;
}

function componentType(id: string): string {
  return id.split('/')[0]!;
}

/** The OTel -> Prometheus translation of an attribute or metric name (dots to underscores). */
const promLabel = (name: string): string => name.replace(/[^a-zA-Z0-9_]/g, '_');

/** What the spanmetrics connector, as configured, produces on the Prometheus side. */
function spanmetricsOutput(connector: any): { metrics: Set<string>; labels: Set<string> } {
  const ns = connector.namespace ? `${promLabel(connector.namespace)}_` : '';
  const unit = { s: 'seconds', ms: 'milliseconds' }[String(connector.histogram?.unit ?? 'ms')];
  const duration = `${ns}duration_${unit}`;
  const metrics = new Set([`${ns}calls_total`, `${duration}_bucket`, `${duration}_sum`, `${duration}_count`]);
  const defaults = ['service.name', 'span.name', 'span.kind', 'status.code'].filter((d) => !(connector.exclude_dimensions ?? []).includes(d));
  const labels = new Set([
    ...defaults.map(promLabel),
    ...(connector.dimensions ?? []).map((d: { name: string }) => promLabel(d.name)),
    // From the resource (service.name, service.instance.id), the histogram, the cardinality limit.
    'job', 'instance', 'le', 'otel_metric_overflow',
  ]);
  return { metrics, labels };
}

/** Every series name a shipped expression may use: loopguard's, the count connector's, spanmetrics'. */
function knownSeries(): Set<string> {
  return new Set([
    ...Object.values(PROMETHEUS_METRICS),
    prometheusName(METRIC_RUNS_EVICTED, 'counter'),
    prometheusName(METRIC_RUN_STOP_EVENTS, 'counter'),
    ...spanmetricsOutput(collector.connectors.spanmetrics).metrics,
  ]);
}

/** Metric names in a PromQL expression: known series names, as whole words. */
function seriesIn(expr: string, known: Set<string>): string[] {
  return (expr.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((w) => known.has(w));
}

describe('telemetry configs', () => {
  describe('docker-compose.yml', () => {
    it('has the collector, Prometheus, Jaeger and Grafana with pinned image tags', () => {
      const images = Object.values(services).map((s: any) => String(s.image));
      for (const repo of ['otel/opentelemetry-collector-contrib', 'prom/prometheus', 'jaegertracing/', 'grafana/grafana', 'redis:']) {
        expect(images.some((i) => i.startsWith(repo)), repo).to.equal(true);
      }
      for (const image of images) {
        const tag = image.split(':')[1];
        expect(tag, `${image} must pin a tag`).to.be.a('string').and.not.match(/^(latest|main|nightly)$/);
        expect(tag).to.match(/\d+\.\d+/);
      }
    });

    it('depends only on defined services and mounts only files that exist', () => {
      for (const [name, s] of Object.entries(services)) {
        const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
        for (const d of deps) expect(services, `${name} depends_on ${d}`).to.have.property(d);
        for (const v of s.volumes ?? []) {
          const src = String(v).split(':')[0]!;
          if (src.startsWith('.')) expect(existsSync(join(ROOT, src)), `${name} mounts ${src}`).to.equal(true);
        }
      }
    });

    it('publishes the ports the configs listen on', () => {
      const receivers = collector.receivers.otlp.protocols;
      const collectorPorts = containerPorts('otel-collector');
      expect(collectorPorts).to.include(hostPort(receivers.grpc.endpoint).port);
      expect(collectorPorts).to.include(hostPort(receivers.http.endpoint).port);
      expect(containerPorts('prometheus')).to.include(9090);
      expect(containerPorts('grafana')).to.include(3000);
      expect(containerPorts('jaeger')).to.include(16686);
    });

    it('runs Redis for the shared run ledger: append-only with an fsync per write, on a named volume, health-checked, on loopback', () => {
      const redis = services.redis;
      expect(redis, 'a redis service').to.be.an('object');
      expect(String(redis.image)).to.match(/^redis:7\.\d+\.\d+$/);
      const command: string[] = redis.command;
      const flag = (name: string): string | undefined => command[command.indexOf(name) + 1];
      expect(command[0]).to.equal('redis-server');
      // "Restart loses nothing recorded" holds only with every write fsynced to the append-only file.
      expect(flag('--appendonly')).to.equal('yes');
      expect(flag('--appendfsync')).to.equal('always');
      // The official image writes its append-only file under /data: a named volume keeps it
      // across `docker compose down` / `up` (a bind mount of a repo path would be a file that exists).
      const [volume, target] = String(redis.volumes[0]).split(':');
      expect(target).to.equal('/data');
      expect(compose.volumes ?? {}, `top-level volume ${volume}`).to.have.property(volume!);
      expect(redis.healthcheck.test).to.deep.equal(['CMD', 'redis-cli', 'ping']);
      // No password: published on the host's loopback only, where the demo's
      // LOOPGUARD_REDIS_URL=redis://localhost:6379 reaches it.
      expect(redis.ports).to.deep.equal(['127.0.0.1:6379:6379']);
    });

    it('the Redis command line is one a real redis-server accepts, with the persistence it asks for', async function () {
      this.timeout(20_000);
      const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
      if (probe.error) throw new Error('redis-server is not installed (apt-get install redis-server; .ci/run does this)');
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'loopguard-compose-redis-'));
      // The compose service's arguments, plus where this test lets it listen and write.
      const [binary, ...args] = services.redis.command as string[];
      const child = spawn(binary!, [...args, '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''], { stdio: 'ignore' });
      const cli = (...command: string[]): string => spawnSync('redis-cli', ['-p', String(port), ...command], { encoding: 'utf8' }).stdout.trim();
      try {
        const deadline = Date.now() + 10_000;
        while (cli('ping') !== 'PONG') {
          if (child.exitCode !== null) throw new Error(`redis-server rejected the compose command line (exit ${child.exitCode})`);
          if (Date.now() > deadline) throw new Error('redis-server did not answer PING within 10 s');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(cli('config', 'get', 'appendonly').split('\n')).to.deep.equal(['appendonly', 'yes']);
        expect(cli('config', 'get', 'appendfsync').split('\n')).to.deep.equal(['appendfsync', 'always']);
        // What the healthcheck runs.
        expect(cli('ping')).to.equal('PONG');
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('hands each service the config file this repo ships', () => {
      const col = services['otel-collector'];
      const colTarget = /--config=(\S+)/.exec(col.command.join(' '))![1]!;
      expect(mountSource('otel-collector', colTarget)).to.equal('./collector/otel-collector.yaml');
      const promTarget = /--config\.file=(\S+)/.exec(services.prometheus.command.join(' '))![1]!;
      const promSource = mountSource('prometheus', promTarget);
      expect(promSource).to.be.a('string');
      expect(existsSync(join(ROOT, promSource!))).to.equal(true);
      expect(mountSource('grafana', '/etc/grafana/provisioning')).to.equal('./grafana/provisioning');
    });
  });

  describe('collector/otel-collector.yaml', () => {
    const sections = ['receivers', 'processors', 'exporters', 'connectors', 'extensions'] as const;

    it('receives OTLP on 0.0.0.0:4317 (gRPC) and 0.0.0.0:4318 (HTTP)', () => {
      expect(collector.receivers.otlp.protocols.grpc.endpoint).to.equal('0.0.0.0:4317');
      expect(collector.receivers.otlp.protocols.http.endpoint).to.equal('0.0.0.0:4318');
    });

    it('pipelines reference only defined components, and every defined one is used', () => {
      const used = new Set<string>();
      const pipelines: Record<string, any> = collector.service.pipelines;
      for (const [pipeline, p] of Object.entries(pipelines)) {
        expect(['traces', 'metrics', 'logs']).to.include(componentType(pipeline));
        for (const [kind, section] of [['receivers', 'receivers'], ['processors', 'processors'], ['exporters', 'exporters']] as const) {
          for (const id of p[kind] ?? []) {
            const defined = id in (collector[section] ?? {}) || ((kind === 'receivers' || kind === 'exporters') && id in (collector.connectors ?? {}));
            expect(defined, `${pipeline}.${kind}: ${id}`).to.equal(true);
            used.add(id);
          }
        }
        expect(p.receivers, `${pipeline} has receivers`).to.not.be.empty;
        expect(p.exporters, `${pipeline} has exporters`).to.not.be.empty;
      }
      for (const id of collector.service.extensions ?? []) {
        expect(collector.extensions, `extension ${id}`).to.have.property(id);
        used.add(id);
      }
      for (const section of sections) {
        for (const id of Object.keys(collector[section] ?? {})) expect(used.has(id), `${section}.${id} is unused`).to.equal(true);
      }
    });

    it('connectors leave one pipeline and enter another of the type they produce', () => {
      const pipelines: Record<string, any> = collector.service.pipelines;
      const produces: Record<string, [string, string]> = { spanmetrics: ['traces', 'metrics'], count: ['logs', 'metrics'] };
      for (const id of Object.keys(collector.connectors)) {
        const [from, to] = produces[componentType(id)] ?? [];
        expect(from, `known connector ${id}`).to.be.a('string');
        const asExporter = Object.entries(pipelines).filter(([, p]) => (p.exporters ?? []).includes(id)).map(([n]) => componentType(n));
        const asReceiver = Object.entries(pipelines).filter(([, p]) => (p.receivers ?? []).includes(id)).map(([n]) => componentType(n));
        expect(asExporter, `${id} exported from`).to.include(from);
        expect(asReceiver, `${id} received in`).to.include(to);
      }
    });

    it('sends traces to a compose service that listens on that port', () => {
      const { host, port } = hostPort(collector.exporters['otlp/jaeger'].endpoint);
      expect(services, host).to.have.property(host);
      const jaeger = services[host];
      const listens = containerPorts(host).has(port) || String(jaeger.command ?? '').includes(`:${port}`);
      expect(listens, `${host} listens on ${port}`).to.equal(true);
    });

    it('spanmetrics sees only guarded tool calls, with bounded dimensions', () => {
      const sm = collector.connectors.spanmetrics;
      const dims = sm.dimensions.map((d: { name: string }) => d.name);
      expect(dims).to.have.members(['loopguard.decision', 'gen_ai.tool.name']);
      // span.name is "execute_tool <tool>": the tool again, uncapped. span.kind says nothing here.
      expect(sm.exclude_dimensions).to.include.members(['span.name', 'span.kind']);
      // Tool names come from the model: the number of dimension sets is capped.
      expect(sm.aggregation_cardinality_limit).to.be.a('number').within(1, 5000);
      expect(sm.dimensions_cache_size, 'deprecated in favour of aggregation_cardinality_limit').to.equal(undefined);
      // Every pipeline feeding spanmetrics first drops the spans loopguard did not decide on.
      const pipelines: Record<string, any> = collector.service.pipelines;
      const feeding = Object.entries(pipelines).filter(([, p]) => (p.exporters ?? []).includes('spanmetrics'));
      expect(feeding).to.not.be.empty;
      for (const [name, p] of feeding) {
        const filters = (p.processors ?? []).filter((id: string) => componentType(id) === 'filter');
        expect(filters, `${name} filters spans`).to.have.length(1);
        expect(collector.processors[filters[0]].traces.span).to.deep.equal(['attributes["loopguard.decision"] == nil']);
        expect(p.exporters, `${name}: the filter must not hide spans from Jaeger`).to.deep.equal(['spanmetrics']);
      }
      // Jaeger still gets every span.
      const toJaeger = Object.values(pipelines).filter((p: any) => (p.exporters ?? []).includes('otlp/jaeger'));
      for (const p of toJaeger as any[]) expect((p.processors ?? []).some((id: string) => componentType(id) === 'filter')).to.equal(false);
    });

    it('the dashboard reads only metrics and labels the spanmetrics connector produces', () => {
      const { metrics, labels } = spanmetricsOutput(collector.connectors.spanmetrics);
      const uses = dashboardExpressions().filter((e) => /\btraces_span_metrics_/.test(e.expr));
      expect(uses.length, 'a panel uses the spanmetrics output').to.be.at.least(1);
      for (const e of uses) {
        for (const name of e.expr.match(/\btraces_span_metrics_[a-z_]+/g) ?? []) expect(metrics, `${e.where}: ${name}`).to.include(name);
        const used = [
          ...[...e.expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((l) => l.trim()).filter(Boolean)),
          ...[...e.expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1]!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((x) => x[1]!)),
        ];
        for (const label of used) expect(labels, `${e.where}: label ${label}`).to.include(label);
      }
    });

    it('count turns stop events into a metric by reason', () => {
      const counted = collector.connectors.count.logs[METRIC_RUN_STOP_EVENTS];
      expect(counted, METRIC_RUN_STOP_EVENTS).to.be.an('object');
      expect(counted.attributes.map((a: { key: string }) => a.key)).to.include('loopguard.stop.reason');
      expect(counted.conditions.join(' ')).to.include('loopguard.stop.reason');
    });
  });

  describe('metrics into Prometheus', () => {
    it('the collector remote-writes to the Prometheus service, which accepts remote write', () => {
      const { host, port } = hostPort(collector.exporters.prometheusremotewrite.endpoint);
      expect(services, host).to.have.property(host);
      expect(containerPorts(host)).to.include(port);
      expect(collector.exporters.prometheusremotewrite.endpoint).to.match(/\/api\/v1\/write$/);
      expect(services[host].command).to.include('--web.enable-remote-write-receiver');
    });

    it('delta sums (the count connector) are made cumulative before remote write', () => {
      const pipeline = Object.values(collector.service.pipelines as Record<string, any>).find((p) => p.exporters.includes('prometheusremotewrite'));
      expect(pipeline.receivers).to.include('count');
      expect(pipeline.processors).to.include('deltatocumulative');
    });

    it('Prometheus scrape targets are compose services', () => {
      const prom = readYaml('collector/prometheus.yml');
      const targets: string[] = prom.scrape_configs.flatMap((j: any) => j.static_configs.flatMap((s: any) => s.targets));
      for (const t of targets) {
        const { host, port } = hostPort(t);
        if (host === 'localhost') continue;
        expect(services, t).to.have.property(host);
        expect(containerPorts(host), t).to.include(port);
      }
    });

    it('promtool accepts the Prometheus config', function () {
      const probe = spawnSync('promtool', ['check', 'config', join(ROOT, 'collector/prometheus.yml')], { encoding: 'utf8' });
      if (probe.error) {
        if (process.env.CI) throw new Error('promtool is missing (it comes with the prometheus package .ci/run installs)');
        this.skip();
      }
      expect(probe.status, probe.stdout + probe.stderr).to.equal(0);
    });
  });

  describe('grafana provisioning', () => {
    const datasources = datasourceFiles().flatMap((f) => readYaml(f).datasources as any[]);
    const uids = new Set(datasources.map((d) => d.uid));

    it('datasources have fixed, unique uids and point at compose services', () => {
      expect(uids.size).to.equal(datasources.length);
      expect(uids).to.include('loopguard-prometheus');
      expect(uids).to.include('loopguard-jaeger');
      for (const ds of datasources) {
        const { host, port } = hostPort(ds.url);
        expect(services, `${ds.name} url`).to.have.property(host);
        expect(containerPorts(host), `${ds.name} port`).to.include(port);
        for (const dest of ds.jsonData?.exemplarTraceIdDestinations ?? []) expect(uids).to.include(dest.datasourceUid);
      }
    });

    it('the dashboard provider reads the folder compose mounts the dashboards into', () => {
      const providers = readYaml('grafana/provisioning/dashboards/loopguard.yaml').providers;
      for (const p of providers) {
        expect(p.type).to.equal('file');
        expect(mountSource('grafana', p.options.path)).to.equal('./grafana/dashboards');
      }
    });

    it('dashboards are valid for file provisioning', () => {
      expect(dashboardFiles()).to.not.be.empty;
      for (const file of dashboardFiles()) {
        const dash = readJson(file);
        expect(dash.uid, `${file} uid`).to.be.a('string').with.length.within(1, 40);
        expect(dash.title).to.be.a('string').and.not.empty;
        expect(dash.schemaVersion).to.be.a('number').at.least(30);
        expect(dash.id ?? null, 'no instance-specific id').to.equal(null);
        const ids = new Set<number>();
        for (const p of allPanels(dash.panels)) {
          expect(ids.has(p.id), `duplicate panel id ${p.id}`).to.equal(false);
          ids.add(p.id);
          expect(p.gridPos, `${p.title} gridPos`).to.include.keys('x', 'y', 'w', 'h');
        }
      }
    });

    it('dashboards name no datasource uid: every query goes through a datasource variable', () => {
      for (const file of dashboardFiles()) {
        const dash = readJson(file);
        const dsVars = new Map<string, string>(
          (dash.templating?.list ?? []).filter((v: any) => v.type === 'datasource').map((v: any) => [`\${${v.name}}`, v.query]),
        );
        expect([...dsVars.values()], `${file}: a Prometheus datasource variable`).to.include('prometheus');
        const refs: { where: string; ds: any }[] = [];
        for (const p of allPanels(dash.panels)) {
          if (p.datasource) refs.push({ where: `panel "${p.title}"`, ds: p.datasource });
          for (const t of p.targets ?? []) refs.push({ where: `panel "${p.title}" ${t.refId}`, ds: t.datasource ?? p.datasource });
          if ((p.targets ?? []).length > 0) expect(p.datasource, `panel "${p.title}" datasource`).to.be.an('object');
        }
        for (const v of dash.templating?.list ?? []) if (v.type === 'query') refs.push({ where: `variable $${v.name}`, ds: v.datasource });
        for (const { where, ds } of refs) {
          expect(ds, `${file} ${where}`).to.be.an('object');
          expect(dsVars.has(ds.uid), `${file} ${where}: uid ${ds.uid} is not a datasource variable`).to.equal(true);
          expect(dsVars.get(ds.uid), `${file} ${where}: variable type`).to.equal(ds.type);
        }
        // The built-in annotation query is Grafana's own datasource, the only fixed uid allowed.
        for (const a of dash.annotations?.list ?? []) expect(a.datasource?.uid, 'annotation datasource').to.equal('-- Grafana --');
      }
    });

    it('dashboards import into an existing Grafana: __inputs declare every ${DS_*} they use', () => {
      for (const file of dashboardFiles()) {
        const dash = readJson(file);
        const text = readFileSync(join(ROOT, file), 'utf8');
        const inputs: any[] = dash.__inputs ?? [];
        expect(inputs.map((i) => i.name), `${file} __inputs`).to.include('DS_PROMETHEUS');
        for (const i of inputs) {
          expect(i.type, i.name).to.equal('datasource');
          expect(i.pluginId, i.name).to.be.oneOf(['prometheus', 'jaeger']);
          expect(text, `${file} uses \${${i.name}}`).to.include(`\${${i.name}}`);
        }
        const used = new Set([...text.matchAll(/\$\{(DS_[A-Z_]+)\}/g)].map((m) => m[1]));
        expect([...used].sort(), 'every ${DS_*} is an input').to.deep.equal(inputs.map((i) => i.name).sort());
        // On import, the Prometheus variable starts on the datasource picked for DS_PROMETHEUS.
        const dsVar = dash.templating.list.find((v: any) => v.type === 'datasource' && v.query === 'prometheus');
        expect(dsVar.current.value).to.equal('${DS_PROMETHEUS}');
        const plugins = (dash.__requires ?? []).filter((r: any) => r.type === 'datasource').map((r: any) => r.id);
        expect(plugins).to.include.members(inputs.map((i) => i.pluginId));
      }
    });

    it('provisioned, the datasource variables resolve to the provisioned datasources', () => {
      // File provisioning does not substitute ${DS_PROMETHEUS}: Grafana falls back to the default
      // datasource of the variable's type. So each type has one datasource, and Prometheus is the default.
      for (const type of ['prometheus', 'jaeger']) expect(datasources.filter((d) => d.type === type), type).to.have.length(1);
      expect(datasources.find((d) => d.type === 'prometheus').isDefault).to.equal(true);
    });

    it('every dashboard query is filtered by $service, on every series it reads', () => {
      const known = knownSeries();
      const unfiltered: string[] = [];
      for (const e of dashboardExpressions()) {
        if (e.where.endsWith('variable $service')) continue; // the list of services itself
        const series = seriesIn(e.expr, known);
        expect(series, `${e.where} reads a known series`).to.not.be.empty;
        // Each occurrence of a series name must carry a selector with job="$service".
        for (const m of e.expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?/g)) {
          if (!known.has(m[1]!)) continue;
          if (!/\bjob\s*=\s*"\$service"/.test(m[2] ?? '')) unfiltered.push(`${e.where}: ${m[0]}`);
        }
      }
      expect(unfiltered, unfiltered.join('\n')).to.deep.equal([]);
      // The Jaeger search is per service too.
      for (const file of dashboardFiles()) {
        for (const p of allPanels(readJson(file).panels)) {
          for (const t of p.targets ?? []) if (t.datasource?.type === 'jaeger') expect(t.service, p.title).to.equal('$service');
        }
      }
    });

    it('dashboards show each required view', () => {
      const text = dashboardFiles().map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
      for (const title of [
        'Refusal rate', 'Stale-round rate', 'Stops by reason', 'Stop rate', 'Runs at risk', 'Wasted calls and tokens',
        'Top looping tools', 'Tool calls by decision', 'Would refuse', 'Runs evicted', 'Runs evicted by cause',
        'Tool call latency p95 by tool', 'Stopped runs', 'Shared store errors', 'Idempotent writes prevented',
        'Refused: store unavailable',
      ]) {
        expect(text, title).to.include(`"title": "${title}`);
      }
      // The stop-to-trace link goes to Jaeger with the stop reason as a tag filter.
      expect(text).to.include('loopguard.stop.reason');
      expect(text).to.include('${jaeger_url}/search?service=${service}');
      // would_refuse is shown as its own series, never summed into refusals.
      expect(text).to.include('loopguard_decision=\\"would_refuse\\"');
      // The shared-store panels read the new counter by operation and the two new refusal reasons.
      expect(text).to.include(`sum by (loopguard_store_operation) (rate(${prometheusName(METRIC_STORE_ERRORS, 'counter')}{job=\\"$service\\"}`);
      expect(text).to.include('loopguard_refusal_reason=\\"write.already_done\\"');
      expect(text).to.include('loopguard_refusal_reason=\\"store.unavailable\\"');
    });

    it('alert rules are complete, per service, and link to a runbook and to the panel of their signal', () => {
      const dash = readJson(dashboardFiles().find((f) => readJson(f).uid === 'loopguard-overview')!);
      const panels = new Map<number, any>(allPanels(dash.panels).map((p) => [p.id, p]));
      const known = knownSeries();
      const rules = alertRules().map((r) => r.rule);
      expect(rules.map((r) => r.uid)).to.include.members(['loopguard-stalled-runs', 'loopguard-stop-rate-spike', 'loopguard-refusal-rate-spike', 'loopguard-store-errors']);
      for (const r of rules) {
        for (const k of ['summary', 'description', 'runbook_url', '__dashboardUid__', '__panelId__']) {
          expect(r.annotations?.[k], `${r.uid} ${k}`).to.be.a('string').and.not.empty;
        }
        expect(r.annotations.runbook, `${r.uid}: runbook_url, not a custom annotation`).to.equal(undefined);
        expect(r.annotations.summary, `${r.uid} summary names the service`).to.include('$labels.job');
        const refs = r.data.map((d: any) => d.refId);
        expect(refs, `${r.uid} condition`).to.include(r.condition);
        for (const d of r.data) expect(d.datasourceUid === '__expr__' || uids.has(d.datasourceUid), `${r.uid} ${d.refId}`).to.equal(true);

        // The panel link: this dashboard, a panel that reads the series the rule reads.
        expect(r.annotations.__dashboardUid__).to.equal(dash.uid);
        const panel = panels.get(Number(r.annotations.__panelId__));
        expect(panel, `${r.uid} __panelId__`).to.not.equal(undefined);
        const ruleSeries = alertExpressions().filter((e) => e.ruleUid === r.uid).flatMap((e) => seriesIn(e.expr, known));
        const panelSeries = (panel.targets ?? []).flatMap((t: any) => seriesIn(t.expr ?? '', known));
        expect(panelSeries, `${r.uid}: panel "${panel.title}" shows the rule's series`).to.include.members([...new Set(ruleSeries)]);

        // The runbook: the dashboard's runbook panel for this rule.
        const url = new URL(r.annotations.runbook_url, 'http://grafana.example');
        expect(url.pathname.split('/').slice(0, 3).join('/')).to.equal(`/d/${dash.uid}`);
        const runbook = panels.get(Number(url.searchParams.get('viewPanel')));
        expect(runbook?.type, `${r.uid} runbook panel`).to.equal('text');
        expect(runbook.title).to.include(r.title);
        expect(runbook.options.content).to.include(`### ${r.title}`);
      }
      expect(rules.find((r) => r.uid === 'loopguard-stalled-runs').for).to.equal('5m');
    });

    it('a webhook contact point and a notification policy route every loopguard alert to it', () => {
      const docs = alertingFiles().map((f) => readYaml(f));
      const contactPoints = docs.flatMap((d) => d.contactPoints ?? []);
      const policies = docs.flatMap((d) => d.policies ?? []);
      const names = new Set(contactPoints.map((c: any) => c.name));
      const webhooks = contactPoints.flatMap((c: any) => c.receivers).filter((r: any) => r.type === 'webhook');
      expect(webhooks).to.have.length.at.least(1);
      // The URL comes from the environment, which compose sets (a placeholder by default).
      const url: string = webhooks[0].settings.url;
      const envVar = /^\$\{?([A-Z_]+)\}?$/.exec(url)?.[1];
      expect(envVar, `webhook url ${url} is an environment variable`).to.be.a('string');
      const composed = String(services.grafana.environment[envVar!]);
      expect(composed).to.match(new RegExp(`^\\$\\{${envVar}:-https?://[^}]+\\.invalid/[^}]*\\}$`));

      expect(policies).to.have.length(1);
      const walk = (p: any): any[] => [p, ...(p.routes ?? []).flatMap(walk)];
      for (const p of walk(policies[0])) expect(names.has(p.receiver), `receiver ${p.receiver}`).to.equal(true);
      expect(policies[0].group_by).to.include.members(['alertname', 'job']);
      // Every rule's labels reach the webhook: a route matches them, or the root takes them.
      const rules = alertRules().map((r) => r.rule);
      const matches = (route: any, labels: Record<string, string>): boolean =>
        (route.object_matchers ?? []).every(([k, op, v]: [string, string, string]) => op === '=' && labels[k] === v);
      for (const r of rules) {
        const route = (policies[0].routes ?? []).find((x: any) => matches(x, r.labels));
        expect(route, `${r.uid} is routed by its labels`).to.not.equal(undefined);
        expect(names.has(route.receiver)).to.equal(true);
      }
    });

    it('promtool accepts the alert rules as Prometheus rules', function () {
      const tmp = mkdtempSync(join(tmpdir(), 'loopguard-rules-'));
      try {
        const file = join(tmp, 'rules.yml');
        writeFileSync(file, JSON.stringify({ groups: [prometheusRuleGroup({ name: 'loopguard', interval: '1m' })] }));
        const probe = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
        if (probe.error) {
          if (process.env.CI) throw new Error('promtool is missing (it comes with the prometheus package .ci/run installs)');
          this.skip();
        }
        expect(probe.status, probe.stdout + probe.stderr).to.equal(0);
        expect(probe.stdout).to.include(`SUCCESS: ${alertRules().length} rules found`);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });

    it('promtool unit test: the rate rules fire per job, only above their minimum volume', function () {
      // Synthetic series, one sample a minute for 30 minutes: `small` has high shares but few
      // runs and calls, `busy` high shares and volume, `calm` volume and no stops or refusals.
      const series = (name: string, job: string, perMinute: number): object => ({ series: `${name}{job="${job}"}`, values: `0+${perMinute}x30` });
      const tests = {
        rule_files: ['rules.yml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: [
              series('loopguard_runs_started_total', 'small', 0.2), series('loopguard_run_stops_total', 'small', 0.1),
              series('loopguard_runs_started_total', 'busy', 2), series('loopguard_run_stops_total', 'busy', 1),
              series('loopguard_runs_started_total', 'calm', 2), series('loopguard_run_stops_total', 'calm', 0),
              series('loopguard_tool_calls_total', 'small', 1), series('loopguard_refusals_total', 'small', 1),
              series('loopguard_tool_calls_total', 'busy', 10), series('loopguard_refusals_total', 'busy', 5),
              series('loopguard_tool_calls_total', 'calm', 10), series('loopguard_refusals_total', 'calm', 0),
            ],
            alert_rule_test: ['loopguard-stop-rate-spike', 'loopguard-refusal-rate-spike'].map((alertname) => ({
              eval_time: '25m',
              alertname,
              exp_alerts: [{ exp_labels: { job: 'busy', ...alertRules().find((r) => r.rule.uid === alertname)!.rule.labels } }],
            })),
          },
        ],
      };
      promtoolTestRules(this, tests);
    });

    it('promtool unit test: the store-error rule fires per job for a sustained outage, not for a failover blip or a trickle', function () {
      // One sample a minute for 30 minutes. `down`: 6 failures a minute throughout (an outage
      // under traffic). `blip`: 40 failures in one minute, then none (a failover). `trickle`:
      // 1 failure a minute (a slow command now and then). `fine`: none.
      const values = { down: '0+6x30', blip: '0x10 40x20', trickle: '0+1x30', fine: '0x30' };
      const rule = alertRules().find((r) => r.rule.uid === 'loopguard-store-errors')!.rule;
      const tests = {
        rule_files: ['rules.yml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: Object.entries(values).map(([job, v]) => ({ series: `loopguard_store_errors_total{job="${job}", loopguard_store_operation="claim"}`, values: v })),
            alert_rule_test: [
              // The blip's 2-minute window is above the threshold at 11–12 m, pending, never for 5 minutes.
              { eval_time: '12m', alertname: 'loopguard-store-errors', exp_alerts: [{ exp_labels: { job: 'down', ...rule.labels } }] },
              // A window longer than `for` (7 minutes) would have the blip firing here.
              { eval_time: '16m', alertname: 'loopguard-store-errors', exp_alerts: [{ exp_labels: { job: 'down', ...rule.labels } }] },
              { eval_time: '20m', alertname: 'loopguard-store-errors', exp_alerts: [{ exp_labels: { job: 'down', ...rule.labels } }] },
              // Before `for` has passed, nothing fires, the outage included.
              { eval_time: '4m', alertname: 'loopguard-store-errors', exp_alerts: [] },
            ],
          },
        ],
      };
      promtoolTestRules(this, tests);
    });

    it('expressions use only loopguard series that the code or the collector produces', () => {
      const known = knownSeries();
      const all = [...dashboardExpressions(), ...alertExpressions()];
      expect(all.length).to.be.greaterThan(10);
      for (const e of all) {
        for (const name of e.expr.match(/\b(?:loopguard|traces)_[a-z_]+/g) ?? []) {
          // Label names (loopguard_stop_reason, ...) also start with loopguard_; metric names are followed by [ { ) , or end.
          if (/_(reason|decision|verdict|profile|cause|operation)$/.test(name)) continue;
          expect(known.has(name), `${e.where}: ${name}`).to.equal(true);
        }
      }
    });
  });
});

/** `promtool test rules` on the provisioned alert rules (as Prometheus rules) with these unit tests. */
function promtoolTestRules(context: Mocha.Context, tests: object): void {
  const tmp = mkdtempSync(join(tmpdir(), 'loopguard-rules-'));
  try {
    writeFileSync(join(tmp, 'rules.yml'), JSON.stringify({ groups: [prometheusRuleGroup({ name: 'loopguard', interval: '1m' })] }));
    writeFileSync(join(tmp, 'tests.yml'), JSON.stringify(tests));
    const probe = spawnSync('promtool', ['test', 'rules', 'tests.yml'], { encoding: 'utf8', cwd: tmp });
    if (probe.error) {
      if (process.env.CI) throw new Error('promtool is missing (it comes with the prometheus package .ci/run installs)');
      context.skip();
    }
    expect(probe.status, probe.stdout + probe.stderr).to.equal(0);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
