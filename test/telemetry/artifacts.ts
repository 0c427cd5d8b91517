// Readers for the shipped observability files, shared by the config and Prometheus tests.
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PROMETHEUS_DS_UID = 'loopguard-prometheus';

export function readYaml(rel: string): any {
  return parse(readFileSync(join(ROOT, rel), 'utf8'));
}
export function readJson(rel: string): any {
  return JSON.parse(readFileSync(join(ROOT, rel), 'utf8'));
}
export function filesIn(rel: string, ext: RegExp): string[] {
  return readdirSync(join(ROOT, rel))
    .filter((f) => ext.test(f))
    .map((f) => `${rel}/${f}`);
}

export const dashboardFiles = (): string[] => filesIn('grafana/dashboards', /\.json$/);
/** Alerting provisioning files: rule groups, contact points and notification policies. */
export const alertingFiles = (): string[] => filesIn('grafana/provisioning/alerting', /\.ya?ml$/);
/** The alerting files that hold rule groups. */
export const alertRuleFiles = (): string[] => alertingFiles().filter((f) => Array.isArray(readYaml(f).groups));
export const datasourceFiles = (): string[] => filesIn('grafana/provisioning/datasources', /\.ya?ml$/);

/** A PromQL expression found in a shipped file, with where it came from. */
export interface FoundExpr {
  where: string;
  expr: string;
  /** `label_values(metric, label)` variable queries are Grafana syntax, evaluated via the series API. */
  labelValues?: { metric: string; label: string };
  /** For alert rules: the threshold Grafana applies to the query result. */
  threshold?: { type: string; value: number };
  ruleUid?: string;
  /** Grafana runs the query over the panel's time range (a time series), not at one instant. */
  range?: boolean;
}

/** Every provisioned alert rule, with the file it is in. */
export function alertRules(): { file: string; rule: any }[] {
  return alertRuleFiles().flatMap((file) => (readYaml(file).groups as any[]).flatMap((g) => (g.rules as any[]).map((rule) => ({ file, rule }))));
}

function isPrometheus(ds: unknown, fallback: unknown): boolean {
  const d = (ds ?? fallback) as { uid?: string; type?: string } | string | undefined;
  if (typeof d === 'string') return d === PROMETHEUS_DS_UID;
  return d?.uid === PROMETHEUS_DS_UID || d?.type === 'prometheus';
}

export function allPanels(panels: any[] = []): any[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels)]);
}

/** Every PromQL expression of every dashboard: panel targets and query variables. */
export function dashboardExpressions(): FoundExpr[] {
  const out: FoundExpr[] = [];
  for (const file of dashboardFiles()) {
    const dash = readJson(file);
    for (const panel of allPanels(dash.panels)) {
      for (const t of panel.targets ?? []) {
        if (typeof t.expr === 'string' && isPrometheus(t.datasource, panel.datasource)) {
          out.push({ where: `${file} panel "${panel.title}" ${t.refId}`, expr: t.expr, range: t.range === true && t.instant !== true });
        }
      }
    }
    for (const v of dash.templating?.list ?? []) {
      if (v.type !== 'query' || !isPrometheus(v.datasource, undefined)) continue;
      const q: string = typeof v.query === 'string' ? v.query : v.query?.query;
      const m = /^label_values\(\s*([^,]+?)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$/.exec(q);
      if (m) out.push({ where: `${file} variable $${v.name}`, expr: m[1]!, labelValues: { metric: m[1]!, label: m[2]! } });
      else out.push({ where: `${file} variable $${v.name}`, expr: q });
    }
  }
  return out;
}

/** Every PromQL expression of the provisioned alert rules, with the rule's threshold. */
export function alertExpressions(): FoundExpr[] {
  const out: FoundExpr[] = [];
  for (const file of alertRuleFiles()) {
    for (const group of readYaml(file).groups ?? []) {
      for (const rule of group.rules ?? []) {
        const byRef = new Map<string, any>((rule.data ?? []).map((d: any) => [d.refId, d]));
        for (const d of rule.data ?? []) {
          if (d.datasourceUid !== PROMETHEUS_DS_UID) continue;
          // The threshold node that reads this query, if any.
          const thr = [...byRef.values()].find((n) => n.model?.type === 'threshold' && n.model.expression === d.refId);
          const ev = thr?.model?.conditions?.[0]?.evaluator;
          out.push({
            where: `${file} rule ${rule.uid} ${d.refId}`,
            expr: d.model.expr,
            ruleUid: rule.uid,
            threshold: ev ? { type: ev.type, value: Number(ev.params[0]) } : undefined,
          });
        }
      }
    }
  }
  return out;
}

/**
 * Grafana's built-in interval variables, replaced as Grafana would for a short time range, and
 * the dashboard's `$service` (a single-value variable: Grafana inserts the value as it is).
 */
export function substituteGrafanaVariables(expr: string, v: { range: string; rateInterval: string; service?: string }): string {
  if (v.service !== undefined) expr = expr.replaceAll('${service}', v.service).replaceAll('$service', v.service);
  return expr
    .replaceAll('$__rate_interval', v.rateInterval)
    .replaceAll('${__rate_interval}', v.rateInterval)
    .replaceAll('$__range', v.range)
    .replaceAll('${__range}', v.range)
    .replaceAll('$__interval', v.rateInterval)
    .replaceAll('${__interval}', v.rateInterval);
}

/** The PromQL a Grafana threshold node amounts to. */
export function thresholdExpr(expr: string, t: { type: string; value: number }): string {
  const op = { gt: '>', lt: '<' }[t.type];
  if (!op) throw new Error(`threshold type ${t.type} not translated`);
  return `(${expr}) ${op} ${t.value}`;
}

/**
 * The provisioned Grafana rules as a Prometheus rule group: expression with its threshold,
 * labels, and (unless `withFor: false`) the rule's `for`. What a Grafana threshold node does to
 * the query result, Prometheus' rule engine does to the comparison, so `promtool` and a real
 * Prometheus can check and evaluate the rules Grafana will run.
 */
export function prometheusRuleGroup(opts: { name: string; interval: string; withFor?: boolean }): { name: string; interval: string; rules: object[] } {
  const rules = alertRules().map(({ rule }) => {
    const found = alertExpressions().find((e) => e.ruleUid === rule.uid && e.threshold);
    if (!found) throw new Error(`rule ${rule.uid} has no Prometheus query with a threshold`);
    return {
      alert: rule.uid,
      expr: thresholdExpr(found.expr, found.threshold!),
      ...(opts.withFor !== false && rule.for ? { for: rule.for } : {}),
      labels: rule.labels ?? {},
    };
  });
  return { name: opts.name, interval: opts.interval, rules };
}
