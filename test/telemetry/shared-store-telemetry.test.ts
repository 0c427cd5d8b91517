// The shared-store telemetry (issue 12 item 8) against a real redis-server that is crashed and
// restarted under a real engine: `loopguard.store.errors` counts what the engine reports, by
// operation; store-error events are rate-limited; the two new refusal reasons are counted and
// start at 0. Real OTel SDK readers and exporters only at the end of the pipeline.
import { expect } from 'chai';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import type { DiagLogger } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { MetricData } from '@opentelemetry/sdk-metrics';
import { LoggerProvider, SimpleLogRecordProcessor, InMemoryLogRecordExporter } from '@opentelemetry/sdk-logs';

import { LoopGuardConfigError } from '../../src/core/errors.js';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { createLoopGuardTelemetry } from '../../src/telemetry/telemetry.js';
import { EVENT_STORE_ERROR, LABEL_STORE_OPERATION, METRIC_STORE_ERRORS, STORE_OPERATIONS } from '../../src/telemetry/names.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';
import { collect, TestReader } from '../helpers/test-metric-reader.js';


/** `attribute value -> data point value` of one metric, for the points matching `match`. */
function byAttribute(all: Map<string, MetricData>, name: string, attribute: string, match: Record<string, unknown> = {}): Record<string, number> {
  const out: Record<string, number> = {};
  for (const dp of (all.get(name)?.dataPoints ?? []) as { attributes: Record<string, unknown>; value: unknown }[]) {
    if (!Object.entries(match).every(([k, v]) => dp.attributes[k] === v)) continue;
    const key = String(dp.attributes[attribute]);
    out[key] = (out[key] ?? 0) + (dp.value as number);
  }
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('telemetry of the shared store (loopguard/redis)', function () {
  this.timeout(30_000);

  let server: RedisServer;
  let reader: TestReader;
  let meterProvider: MeterProvider;
  let logExporter: InMemoryLogRecordExporter;
  let loggerProvider: LoggerProvider;
  let prefix: string;
  /** Set while a test has Redis down, so a failing test cannot leave it down for the next. */
  let crashed = false;

  before(async () => {
    server = await startRedisServer({ appendOnly: true });
  });
  after(async () => {
    await server.stop();
  });

  beforeEach(() => {
    reader = new TestReader();
    meterProvider = new MeterProvider({ readers: [reader] });
    logExporter = new InMemoryLogRecordExporter();
    loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
    prefix = `telemetry-${Math.random().toString(36).slice(2)}`;
  });
  afterEach(async () => {
    if (crashed) {
      await server.restart();
      crashed = false;
    }
    await meterProvider.shutdown();
    await loggerProvider.shutdown();
  });

  it('counts every store failure of a Redis outage by operation, from 0, as the engine reports them; one event per interval', async () => {
    const client = await server.client();
    const store = createRedisRunStore({ client, keyPrefix: prefix, timeoutMs: 300 });
    // What the engine reports, counted by a second listener: the counter must agree with it.
    const reported: Record<string, number> = {};
    const guard = new LoopGuard({
      store,
      idempotentWrites: { send_email: { key: ['to'] } },
      logger: { warn: () => undefined },
      listeners: [{ storeError: (operation) => void (reported[operation] = (reported[operation] ?? 0) + 1) }],
    });
    const telemetry = createLoopGuardTelemetry({ guard, meterProvider, loggerProvider, toolNames: ['search', 'send_email'], storeErrorEventIntervalMs: 400 });

    // Before any failure every operation has its series, at 0: the first failure counts in rate().
    let all = await collect(reader);
    expect(byAttribute(all, METRIC_STORE_ERRORS, LABEL_STORE_OPERATION)).to.deep.equal(Object.fromEntries(STORE_OPERATIONS.map((operation) => [operation, 0])));
    expect(all.get(METRIC_STORE_ERRORS)!.descriptor.unit).to.equal('{error}');

    const run = guard.startRun('outage');
    run.beginRound();
    const healthy = await run.claimCall({ tool: 'search', args: { q: 'before' } });
    run.finishCall(healthy, { result: ['a'] });
    await guard.flush();
    expect(reported, 'no failure while Redis is up').to.deep.equal({});

    await server.crash();
    crashed = true;
    for (let index = 0; index < 10; index++) {
      const ticket = await run.claimCall({ tool: 'search', args: { q: `during ${index}` } });
      expect(ticket.decision.action, 'ordinary calls fail open').to.equal('allow');
      run.finishCall(ticket, { result: [`r${index}`] });
    }
    const write = await run.claimCall({ tool: 'send_email', args: { to: 'ops@example.com' } });
    expect(write.decision.action === 'refuse' && write.decision.reason, 'business-key writes fail closed').to.equal('store.unavailable');
    await guard.flush();

    all = await collect(reader);
    const counted = byAttribute(all, METRIC_STORE_ERRORS, LABEL_STORE_OPERATION);
    expect(counted.claim, 'one failed claim per call').to.be.at.least(10);
    expect(counted.business_key, 'the write\'s key claim').to.be.at.least(1);
    // Exactly what the engine reported, operation by operation; the rest stays at 0.
    expect(counted).to.deep.equal({ ...Object.fromEntries(STORE_OPERATIONS.map((operation) => [operation, 0])), ...reported });
    expect(byAttribute(all, 'loopguard.refusals', 'loopguard.refusal.reason', { 'gen_ai.tool.name': 'send_email' })['store.unavailable']).to.equal(1);

    // Dozens of failures, one log record: it stands for the first failure (more came after it).
    let events = logExporter.getFinishedLogRecords().filter((record) => record.eventName === EVENT_STORE_ERROR);
    expect(events, 'one event for the whole burst').to.have.length(1);
    expect(events[0]!.severityText).to.equal('WARN');
    expect(events[0]!.attributes).to.include({ 'loopguard.run.id': 'outage', 'loopguard.store.errors': 1 });
    expect(STORE_OPERATIONS).to.include(events[0]!.attributes[LABEL_STORE_OPERATION]);
    expect(String(events[0]!.body)).to.match(/^the shared store failed \(\w+\): ./);

    // Past the interval, the next failure emits again and says how many it stands for.
    await sleep(450);
    const late = await run.claimCall({ tool: 'search', args: { q: 'late' } });
    run.finishCall(late, { result: ['late'] });
    await guard.flush();
    const total = Object.values(reported).reduce((sum, count) => sum + count, 0);
    events = logExporter.getFinishedLogRecords().filter((record) => record.eventName === EVENT_STORE_ERROR);
    expect(events).to.have.length(2);
    const second = events[1]!.attributes['loopguard.store.errors'] as number;
    expect(second, 'every failure since the first event').to.be.greaterThan(1);
    // The second event reports failures up to itself; any after it wait for the next one.
    expect(1 + second).to.be.at.most(total);

    // Redis back: calls are shared again and nothing more is counted.
    await server.restart();
    crashed = false;
    await sleep(1_500); // the client reconnects
    const before = { ...reported };
    const back = await run.claimCall({ tool: 'search', args: { q: 'after' } });
    expect(back.decision.action).to.equal('allow');
    run.finishCall(back, { result: ['after'] });
    await guard.flush();
    expect(reported).to.deep.equal(before);
    expect(byAttribute(await collect(reader), METRIC_STORE_ERRORS, LABEL_STORE_OPERATION)).to.deep.equal({ ...Object.fromEntries(STORE_OPERATIONS.map((operation) => [operation, 0])), ...reported });
    telemetry.shutdown();
  });

  it('counts an idempotent write prevented (write.already_done) for the tool, from a series that started at 0', async () => {
    const client = await server.client();
    const store = createRedisRunStore({ client, keyPrefix: prefix });
    const guard = new LoopGuard({ store, idempotentWrites: { send_email: { key: ['to', 'subject'] } }, logger: { warn: () => undefined } });
    const telemetry = createLoopGuardTelemetry({ guard, meterProvider, toolNames: ['send_email'] });
    let reasons = byAttribute(await collect(reader), 'loopguard.refusals', 'loopguard.refusal.reason', { 'gen_ai.tool.name': 'send_email' });
    expect(reasons['write.already_done'], 'started at 0').to.equal(0);
    expect(reasons['store.unavailable'], 'started at 0').to.equal(0);

    const email = { to: 'customer@example.com', subject: 'Your refund', body: 'first wording' };
    const first = guard.startRun('first-worker');
    first.beginRound();
    const sent = await first.claimCall({ tool: 'send_email', args: email });
    expect(sent.decision.action).to.equal('allow');
    first.finishCall(sent, { result: { messageId: 'm-1' } });
    await guard.flush();

    // Another run (another worker, after a redeploy) sends the same email, reworded.
    const second = guard.startRun('second-worker');
    second.beginRound();
    const again = await second.claimCall({ tool: 'send_email', args: { ...email, body: 'second wording' } });
    expect(again.decision.action === 'refuse' && again.decision.reason).to.equal('write.already_done');
    // A different subject is a different business key: it runs.
    const other = await second.claimCall({ tool: 'send_email', args: { ...email, subject: 'Your invoice' } });
    expect(other.decision.action).to.equal('allow');

    reasons = byAttribute(await collect(reader), 'loopguard.refusals', 'loopguard.refusal.reason', { 'gen_ai.tool.name': 'send_email' });
    expect(reasons['write.already_done']).to.equal(1);
    expect(reasons['store.unavailable']).to.equal(0);
    telemetry.shutdown();
  });

  it('never throws: an unknown operation is folded into _other, an error whose message cannot be read still makes its event', async () => {
    const messages: string[] = [];
    const sink = (message: string): void => void messages.push(message);
    const logger: DiagLogger = { error: sink, warn: sink, info: sink, debug: sink, verbose: sink };
    diag.setLogger(logger, DiagLogLevel.WARN);
    try {
      const telemetry = createLoopGuardTelemetry({ meterProvider, loggerProvider, storeErrorEventIntervalMs: 0 });
      expect(() => telemetry.listener.storeError!('rename', 'r', undefined)).to.not.throw();
      // An error whose message cannot even be read.
      const hostile = Object.create(Error.prototype, { message: { get: () => { throw new Error('no message for you'); } } });
      expect(() => telemetry.listener.storeError!('claim', 'r', hostile)).to.not.throw();
      const counted = byAttribute(await collect(reader), METRIC_STORE_ERRORS, LABEL_STORE_OPERATION);
      expect(counted._other).to.equal(1);
      expect(counted.claim).to.equal(1);
      // Its event still goes out, naming what can be named; nothing failed on the way.
      expect(logExporter.getFinishedLogRecords().some((record) => String(record.body).startsWith('the shared store failed (claim): '))).to.equal(true);
      expect(messages.filter((message) => message.includes('storeError failed'))).to.deep.equal([]);
      telemetry.shutdown();
    } finally {
      diag.disable();
    }
  });

  it('storeErrorEvents: false emits no store-error event; a bad storeErrorEventIntervalMs names the field', async () => {
    const telemetry = createLoopGuardTelemetry({ meterProvider, loggerProvider, storeErrorEvents: false });
    telemetry.listener.storeError!('append', 'quiet', new Error('connection refused'));
    expect(logExporter.getFinishedLogRecords()).to.deep.equal([]);
    expect(byAttribute(await collect(reader), METRIC_STORE_ERRORS, LABEL_STORE_OPERATION).append).to.equal(1);
    telemetry.shutdown();
    for (const bad of [-1, Number.NaN, '60000' as unknown as number]) {
      expect(() => createLoopGuardTelemetry({ meterProvider, storeErrorEventIntervalMs: bad }))
        .to.throw(LoopGuardConfigError)
        .with.property('field', 'storeErrorEventIntervalMs');
    }
  });
});
