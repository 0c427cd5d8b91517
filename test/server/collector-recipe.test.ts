import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const recipe = parse(readFileSync(new URL('../../collector/loopguard-serve.yaml', import.meta.url), 'utf8')) as {
  receivers: Record<string, unknown>;
  processors: Record<string, any>;
  exporters: Record<string, any>;
  service: { pipelines: Record<string, { receivers: string[]; processors: string[]; exporters: string[] }> };
};

/**
 * The OTTL drop condition of filter/agent_spans, evaluated for the few forms it uses
 * (`attributes["k"] == nil`, `and`, `not IsMatch(name, "re")`), so the test says which spans
 * travel to loopguard rather than only that the YAML parses.
 */
function dropped(name: string, attributes: Record<string, string>): boolean {
  const condition = String(recipe.processors['filter/agent_spans'].traces.span[0]);
  return condition.split(/\s+and\s+/).every((clause) => {
    const nil = /^attributes\["([^"]+)"\] == nil$/.exec(clause.trim());
    if (nil !== null) return attributes[nil[1]!] === undefined;
    const match = /^not IsMatch\(name, "(.*)"\)$/.exec(clause.trim());
    if (match !== null) return !new RegExp(match[1]!.replace(/\\\\/g, '\\')).test(name);
    throw new Error(`unexpected clause: ${clause}`);
  });
}

describe('collector/loopguard-serve.yaml (Collector recipe for loopguard serve)', () => {
  it('pipelines reference only defined components, and every defined one is used', () => {
    const used = { receivers: new Set<string>(), processors: new Set<string>(), exporters: new Set<string>() };
    for (const pipeline of Object.values(recipe.service.pipelines)) {
      for (const kind of ['receivers', 'processors', 'exporters'] as const) {
        for (const id of pipeline[kind]) {
          expect(recipe[kind], `${kind} ${id}`).to.have.property(id);
          used[kind].add(id);
        }
      }
    }
    for (const kind of ['receivers', 'processors', 'exporters'] as const) expect([...used[kind]].sort()).to.deep.equal(Object.keys(recipe[kind]).sort());
  });

  it('fans the one receiver out: the backend pipeline is unfiltered, the loopguard one filters before batching and exporting', () => {
    const { traces, 'traces/loopguard': loopguard } = recipe.service.pipelines;
    expect(traces!.receivers).to.deep.equal(loopguard!.receivers);
    expect(traces!.processors).to.not.include('filter/agent_spans');
    expect(loopguard!.processors.indexOf('filter/agent_spans')).to.be.within(0, loopguard!.processors.indexOf('batch/loopguard') - 1);
    expect(loopguard!.exporters).to.deep.equal(['otlphttp/loopguard']);
  });

  it('sends gzip OTLP/HTTP to loopguard serve\'s default port, in batches under its --max-spans, retrying its 503s', () => {
    const exporter = recipe.exporters['otlphttp/loopguard'];
    expect(new URL(exporter.endpoint).port).to.equal('4319');
    expect(exporter.compression).to.equal('gzip');
    expect(exporter.retry_on_failure.enabled).to.equal(true);
    expect(recipe.processors['batch/loopguard'].send_batch_max_size).to.be.at.most(10_000);
  });

  it('lets every convention loopguard reads travel, and drops the rest', () => {
    expect(dropped('execute_tool search', { 'gen_ai.operation.name': 'execute_tool' })).to.equal(false);
    expect(dropped('chat gpt-4o', { 'gen_ai.operation.name': 'chat' })).to.equal(false);
    expect(dropped('web_search', { 'openinference.span.kind': 'TOOL' })).to.equal(false);
    expect(dropped('web_search.tool', { 'traceloop.span.kind': 'tool' })).to.equal(false);
    expect(dropped('openai.chat', { 'llm.request.type': 'chat' })).to.equal(false);
    expect(dropped('running tool', { 'gen_ai.tool.name': 'x' })).to.equal(false);
    expect(dropped('agent run', {})).to.equal(false);
    expect(dropped('ai.toolCall', {})).to.equal(false);
    expect(dropped('ai.generateText.doGenerate', {})).to.equal(false);
    expect(dropped('GET /api/orders', { 'http.request.method': 'GET' })).to.equal(true);
    expect(dropped('SELECT orders', { 'db.system': 'postgresql' })).to.equal(true);
  });
});
