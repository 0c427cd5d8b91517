// Long runs outlive their context: Claude Code compacts the conversation (auto-compact, or
// `/compact`), OpenHands' condensers summarise old events, a LangGraph app trims messages.
// After that the model no longer has what it read, and reading it again is what a healthy
// agent does. A refusal saying "its result is in the conversation above" would then withhold
// it, and the re-reads would count as a stale loop. RunGuard.contextCompacted() says so.
import { expect } from 'chai';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { judgeEachCall, newRun, playRounds, playTakingTurns, type ScriptedCall } from './play.js';

const read = (path: string, text: string, compactedBefore = false): ScriptedCall => ({ tool: 'Read', args: { file_path: path }, outcome: { result: text }, compactedBefore });
const grep = (pattern: string, text: string, compactedBefore = false): ScriptedCall => ({ tool: 'Grep', args: { pattern }, outcome: { result: text }, compactedBefore });
const APP = '     1\texport const port = 8080;\n     2\texport const host = "localhost";\n';
const ROUTES = '     1\timport { port } from "./app";\n     2\texport const routes = [];\n';

describe('context compaction: what the model forgot may be read again (RunGuard.contextCompacted)', () => {
  it('Claude Code after an auto-compact: the files read before are read again, allowed and no loop', () => {
    const before = [read('/repo/src/app.ts', APP), read('/repo/src/routes.ts', ROUTES), grep('port', 'src/app.ts:1\nsrc/routes.ts:1\n')];
    const after = [read('/repo/src/app.ts', APP, true), read('/repo/src/routes.ts', ROUTES), grep('port', 'src/app.ts:1\nsrc/routes.ts:1\n')];
    const compacted = judgeEachCall([...before, ...after]);
    expect(compacted.judged).to.deep.equal(['new', 'new', 'new', 'neutral', 'neutral', 'neutral']);
    expect(compacted.stop).to.equal(undefined);
    // Without the compaction the same re-reads are refused: the model is told the result is above.
    const forgotten = after.map((step) => ({ ...step, compactedBefore: false }));
    expect(judgeEachCall([...before, ...forgotten]).judged.slice(3)).to.deep.equal(['refused:repeat.run_wide', 'refused:repeat.run_wide', 'refused:repeat.run_wide']);
  });

  it('once read again, a file is in the conversation again: the next identical read is refused', () => {
    const { judged } = judgeEachCall([read('/repo/src/app.ts', APP), read('/repo/src/app.ts', APP, true), read('/repo/src/app.ts', APP)]);
    expect(judged).to.deep.equal(['new', 'neutral', 'refused:repeat.run_wide']);
  });

  it('a loop goes on being a loop: the stale streak carries across the compaction', () => {
    const documents = { items: [{ id: 'doc-17', title: 'Refund policy' }, { id: 'doc-42', title: 'Returns FAQ' }] };
    const search = (query: string, compactedBefore = false): ScriptedCall[] => [{ tool: 'WebSearch', args: { query }, outcome: { result: documents }, compactedBefore }];
    const queries = ['refund policy', 'refunds', 'how to get a refund', 'refund rules', 'refund terms', 'refund conditions', 'refund window', 'money back'];
    const plain = playRounds(newRun(), queries.map((query) => search(query)));
    const compacted = playRounds(newRun(), queries.map((query, index) => search(query, index === 4)));
    expect(plain.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(compacted.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    // The reworded search right after the compaction is learned again (neutral): one round later, not a fresh start.
    expect(compacted.length).to.equal(plain.length + 1);
  });

  it('a host that reports a compaction every round (a sliding message window) cannot hide a loop: a result is learned again once', () => {
    const documents = { items: [{ id: 'doc-17', title: 'Refund policy' }, { id: 'doc-42', title: 'Returns FAQ' }] };
    const queries = Array.from({ length: 16 }, (_, index) => `refund policy, take ${index + 1}`);
    const log = playRounds(newRun(), queries.map((query) => [{ tool: 'WebSearch', args: { query }, outcome: { result: documents }, compactedBefore: true }]));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log.length).to.be.at.most(8);
  });

  it('a result the run never saw is new after it; a list holding only documents seen before is learned again', () => {
    const list = (ids: string[], compactedBefore = false): ScriptedCall => ({
      tool: 'search_docs',
      args: { query: ids.join(' ') },
      outcome: { result: { items: ids.map((id) => ({ id, title: `Document ${id}` })) } },
      compactedBefore,
    });
    const { judged } = judgeEachCall([list(['doc-1', 'doc-2']), list(['doc-2', 'doc-1'], true), list(['doc-1', 'doc-3']), list(['doc-2', 'doc-3'])]);
    expect(judged).to.deep.equal(['new', 'neutral', 'new', 'seen']);
  });

  it('a tool the ladder switched off is usable again: reading again needs it', () => {
    const run = newRun();
    const documents = { items: [{ id: 'doc-17' }, { id: 'doc-42' }] };
    playRounds(run, [[{ tool: 'Read', args: { file_path: '/repo/README.md' }, outcome: { result: '# Shop\n' } }]]);
    playRounds(run, ['a', 'b', 'c', 'd'].map((query) => [{ tool: 'search_docs', args: { query }, outcome: { result: documents } }]));
    expect(run.disabledTools()).to.include('search_docs');
    run.contextCompacted();
    expect(run.disabledTools()).to.deep.equal([]);
    run.beginRound();
    expect(run.startCall({ tool: 'search_docs', args: { query: 'e' } }).decision.action).to.equal('allow');
  });

  it('two engines sharing the run through a store, taking turns: the one that did not compact reads it from the log', async () => {
    const steps = [read('/repo/src/app.ts', APP), read('/repo/src/routes.ts', ROUTES), read('/repo/src/app.ts', APP, true), read('/repo/src/routes.ts', ROUTES), read('/repo/src/app.ts', APP)];
    // The compaction is made by the first engine (step 3); the second engine's re-read (step 4)
    // is allowed only because it applied the logged compaction.
    expect(await playTakingTurns('compacted', steps)).to.deep.equal(['allow/continue', 'allow/continue', 'allow/continue', 'allow/continue', 'refuse/continue']);
  });

  it('a compaction every round keeps memory bounded: what was forgotten is one table, not one per compaction', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // A LangGraph app trimming its messages every step reports a compaction before every
    // model call, for as long as the run lasts. Every round here learns one new result.
    const run = newRun({ maxRounds: 100_000, maxToolCalls: 100_000 });
    const heapAt = new Map<number, number>();
    const rounds = 20_000;
    for (let round = 1; round <= rounds; round++) {
      run.contextCompacted();
      run.beginRound();
      const ticket = run.startCall({ tool: 'Read', args: { file_path: `/repo/src/file-${round}.ts` } });
      run.finishCall(ticket, { result: `export const value = ${round};\n` });
      if (round === 2_000 || round === rounds) {
        gc();
        // The ledger's tables are typed arrays: their memory is outside the JS heap.
        const { heapUsed, arrayBuffers } = process.memoryUsage();
        heapAt.set(round, heapUsed + arrayBuffers);
      }
    }
    expect(run.shouldStop().action).to.equal('continue');
    const perRound = ((heapAt.get(rounds) as number) - (heapAt.get(2_000) as number)) / (rounds - 2_000);
    // Measured: 82–98 B a round with one table of what was forgotten; 738 B with one table
    // kept per compaction, for as long as the run is open (and 10 s, not 0.3, to play it).
    expect(perRound).to.be.below(300);
  });

  it('an ended run ignores it', () => {
    const run = newRun();
    run.end();
    expect(() => run.contextCompacted()).to.not.throw();
  });
});
