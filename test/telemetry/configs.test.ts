// The compose stack, the Collector config and the Grafana provisioning cannot run here (no
// Docker engine), so they are checked for what breaks them in practice: references to services,
// ports, pipeline components and datasource uids that do not exist.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';

import { prometheusName, METRIC_RUN_STOP_EVENTS, PROMETHEUS_METRICS } from '../../src/telemetry/names.js';
import {
  ROOT,
  alertExpressions,
  alertRuleFiles,
  dashboardExpressions,
  dashboardFiles,
  datasourceFiles,
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

describe('telemetry configs', () => {
  describe('docker-compose.yml', () => {
    it('has the collector, Prometheus, Jaeger and Grafana with pinned image tags', () => {
      const images = Object.values(services).map((s: any) => String(s.image));
      for (const repo of ['otel/opentelemetry-collector-contrib', 'prom/prometheus', 'jaegertracing/', 'grafana/grafana']) {
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

    it('spanmetrics has the decision and tool dimensions; count turns stop events into a metric by reason', () => {
      const dims = collector.connectors.spanmetrics.dimensions.map((d: { name: string }) => d.name);
      expect(dims).to.include.members(['loopguard.decision', 'gen_ai.tool.name']);
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
        const check = (panels: any[]): void => {
          for (const p of panels) {
            expect(ids.has(p.id), `duplicate panel id ${p.id}`).to.equal(false);
            ids.add(p.id);
            expect(p.gridPos, `${p.title} gridPos`).to.include.keys('x', 'y', 'w', 'h');
            const refs = [p.datasource, ...(p.targets ?? []).map((t: any) => t.datasource)].filter(Boolean);
            for (const ds of refs) expect(uids, `${file} "${p.title}" datasource`).to.include(ds.uid);
            check(p.panels ?? []);
          }
        };
        check(dash.panels);
        for (const v of dash.templating?.list ?? []) if (v.datasource) expect(uids, `$${v.name}`).to.include(v.datasource.uid);
      }
    });

    it('dashboards show each required view', () => {
      const text = dashboardFiles().map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
      for (const title of ['Refusal rate', 'Stale-round rate', 'Stops by reason', 'Runs at risk', 'Wasted calls and tokens', 'Top looping tools', 'Stopped runs']) {
        expect(text, title).to.include(`"title": "${title}`);
      }
      // The stop-to-trace link goes to Jaeger with the stop reason as a tag filter.
      expect(text).to.include('loopguard.stop.reason');
      expect(text).to.include('loopguard-jaeger');
    });

    it('alert rules are complete and use provisioned datasources', () => {
      const rules = alertRuleFiles().flatMap((f) => readYaml(f).groups.flatMap((g: any) => g.rules as any[]));
      expect(rules.map((r) => r.uid)).to.include.members(['loopguard-stalled-runs', 'loopguard-stop-rate-spike', 'loopguard-refusal-rate-spike']);
      for (const r of rules) {
        for (const k of ['summary', 'description', 'runbook']) expect(r.annotations?.[k], `${r.uid} ${k}`).to.be.a('string').and.not.empty;
        const refs = r.data.map((d: any) => d.refId);
        expect(refs, `${r.uid} condition`).to.include(r.condition);
        for (const d of r.data) expect(d.datasourceUid === '__expr__' || uids.has(d.datasourceUid), `${r.uid} ${d.refId}`).to.equal(true);
      }
      expect(rules.find((r) => r.uid === 'loopguard-stalled-runs').for).to.equal('5m');
    });

    it('expressions use only loopguard series that the code or the collector produces', () => {
      const known = new Set([...Object.values(PROMETHEUS_METRICS), prometheusName(METRIC_RUN_STOP_EVENTS, 'counter')]);
      const all = [...dashboardExpressions(), ...alertExpressions()];
      expect(all.length).to.be.greaterThan(10);
      for (const e of all) {
        for (const name of e.expr.match(/\bloopguard_[a-z_]+/g) ?? []) {
          // Label names (loopguard_stop_reason, ...) also start with loopguard_; metric names are followed by [ { ) , or end.
          if (/_(reason|decision|verdict|profile)$/.test(name)) continue;
          expect(known.has(name), `${e.where}: ${name}`).to.equal(true);
        }
      }
    });
  });
});
