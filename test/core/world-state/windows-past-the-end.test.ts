// Pages past the end of a file: once a window read came back shorter than it asked (`sed -n
// '101,200p'` printing 40 lines), the file is known to end there. A window that starts past that
// line, with nothing written since, can only come back empty: the same nothing again, not a new
// question answered "zero results" (document 000's exploration). Without it an agent paging on
// past the end with `sed -n` ran until the empty-answer bound, ten rounds later.
import { expect } from 'chai';
import { decodeRunEvent, encodeRunEvent } from '../../../src/core/shared-ledger/run-event.js';
import { resolveOptions } from '../../../src/core/policy.js';
import { readWindowRequestOf } from '../../../src/core/world-state/read-window-request-of.js';
import { returnedWindowOf } from '../../../src/core/world-state/returned-window-of.js';
import { judgeEachCall, playTakingTurns, type ScriptedCall } from '../play.js';

const options = resolveOptions({});
const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`).join('\n');
const sed = (from: number, to: number, output: string): ScriptedCall => ({ tool: 'bash', args: { command: `sed -n '${from},${to}p' src/app.py` }, outcome: { result: output } });

/** The novelty of each call, one per round, until a stop. */
const judged = (steps: ScriptedCall[]) => judgeEachCall(steps).judged;

describe('world-state: windows past the end of a file', () => {
  it('a window that came back shorter than asked knows where the file ends', () => {
    const request = readWindowRequestOf('bash', options.tool('bash'), { command: "sed -n '101,200p' src/app.py" })!;
    expect(returnedWindowOf(request, lines(101, 140))).to.deep.equal({ resource: 'src/app.py', numbered: false, ranges: [[101, 140]], lastLine: 140 });
    expect(returnedWindowOf(request, lines(101, 200))).to.deep.equal({ resource: 'src/app.py', numbered: false, ranges: [[101, 200]] });
    const whole = readWindowRequestOf('bash', options.tool('bash'), { command: 'cat src/app.py' })!;
    expect(returnedWindowOf(whole, lines(1, 140))).to.deep.include({ lastLine: 140 });
  });

  it('paging on past the end with sed -n: the pages past it are seen, and the run stops', () => {
    const steps = [sed(1, 100, lines(1, 100)), sed(101, 200, lines(101, 140))];
    for (let page = 2; page < 14; page++) steps.push(sed(page * 100 + 1, page * 100 + 100, ''));
    const { judged: out, stop } = judgeEachCall(steps);
    expect(out.slice(0, 3)).to.deep.equal(['new', 'new', 'seen']);
    expect(stop?.action).to.equal('stop');
    // At most seven calls ran (eight entries, with the stop).
    expect(out.length).to.be.at.most(7);
  });

  it('a window inside the file that prints nothing (blank lines) is not judged past the end; a write in between forgets the end', () => {
    expect(judged([sed(1, 100, lines(1, 100)), sed(101, 200, lines(101, 140)), sed(120, 130, '')])).to.deep.equal(['new', 'new', 'new']);
    const edited: ScriptedCall = { tool: 'bash', args: { command: "printf 'x\\n' >> src/app.py" }, outcome: { result: '' } };
    expect(judged([sed(101, 200, lines(101, 140)), edited, sed(201, 300, '')])).to.deep.equal(['new', 'neutral', 'new']);
  });

  it('the end of a file, and the window an empty read asked for, survive the shared run log', () => {
    const window = { resource: 'src/app.py', numbered: false, ranges: [[101, 140]] as Array<[number, number]>, lastLine: 140 };
    const shown = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 5, outcome: { outcome: 'success', resultHash: 'r', window } }), 'test:1');
    expect(shown.type === 'finish' && shown.outcome.window).to.deep.equal(window);
    const asked = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k2', time: 6, outcome: { outcome: 'empty', askedFrom: { resource: 'src/app.py', line: 201 } } }), 'test:2');
    expect(asked.type === 'finish' && asked.outcome.askedFrom).to.deep.equal({ resource: 'src/app.py', line: 201 });
  });

  it('two engines taking turns agree with one', async () => {
    const steps = [sed(1, 100, lines(1, 100)), sed(101, 200, lines(101, 140))];
    for (let page = 2; page < 14; page++) steps.push(sed(page * 100 + 1, page * 100 + 100, ''));
    const log = await playTakingTurns('paging', steps);
    expect(log.at(-1)).to.match(/\/stop$/);
    expect(log.length).to.be.at.most(7);
  });
});
