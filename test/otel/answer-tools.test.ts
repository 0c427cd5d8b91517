// Answer tools through the span processor fed by the real OTel SDK (issue 18 item 1): an
// execute_tool span of send_msg_to_user after the stop is decided `allow`, everything else
// `run.stopped`.
import { expect } from 'chai';

import { GEN_AI, makeHarness, modelCallSpan, startRunSpan, toolCallSpan, useContextManager, type Harness } from './otel-test-helpers.js';

const SAME_PAGE = 'RootWebArea "Orders" [12] link "Next page" [13] StaticText "Page 1 of 1"';

describe('LoopGuardSpanProcessor: answer tools are sacred', () => {
  useContextManager();
  let h: Harness;
  afterEach(async () => {
    await h?.shutdown();
  });

  it('decides the answer span after a stop `allow`, the other calls `run.stopped`, and only one answer', () => {
    h = makeHarness();
    const { span: root, ctx } = startRunSpan(h.tracer, 'browser-1');
    let rounds = 0;
    while (h.processor.shouldStop(ctx)?.action !== 'stop' && rounds < 12) {
      rounds += 1;
      modelCallSpan(h.tracer, ctx);
      toolCallSpan(h.tracer, ctx, 'click', { bid: String(12 + rounds) }, { result: SAME_PAGE });
    }
    expect(h.processor.shouldStop(ctx)?.action).to.equal('stop');
    modelCallSpan(h.tracer, ctx);
    toolCallSpan(h.tracer, ctx, 'click', { bid: '99' }, { result: SAME_PAGE });
    toolCallSpan(h.tracer, ctx, 'send_msg_to_user', { text: 'There is one order.' }, { result: 'sent' });
    toolCallSpan(h.tracer, ctx, 'send_msg_to_user', { text: 'Anything else?' }, { result: 'sent' });
    root.end();
    const decisions = h
      .finished()
      .filter((span) => span.attributes[GEN_AI.op] === 'execute_tool')
      .slice(-3)
      .map((span) => [span.attributes[GEN_AI.toolName], span.attributes['loopguard.decision'], span.attributes['loopguard.refusal.reason']]);
    expect(decisions).to.deep.equal([
      ['click', 'refuse', 'run.stopped'],
      ['send_msg_to_user', 'allow', undefined],
      ['send_msg_to_user', 'refuse', 'run.stopped'],
    ]);
  });
});
