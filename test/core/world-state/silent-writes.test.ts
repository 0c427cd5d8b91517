// A write that answers with nothing (`mv a b`, `cp a b`, `mkdir -p d`) only acknowledges itself
// the first time. The same write answering nothing again, with nothing written in between, is
// a repeat — document 003's identical(call) ∧ identical(outcome) ∧ no state advance — exactly as
// a write answering the same non-empty text again already was. InterCode-Bash (eval/WIDE.md):
// gpt-4 on fs_2 task 9 ran the same silent `find … -execdir bash -c 'mv …'` seven times in ten
// turns; every run was neutral, so nothing ever counted toward a stop.
import { expect } from 'chai';
import type { Novelty } from '../../../src/core/types.js';
import { judgeEachCall, newRun } from '../play.js';

const rename = `find /system/folder1 -type f -name '*special*' -execdir bash -c 'mv "$1" "\${1//special/regular}"' _ {} \\;`;

/** One silent bash call per round: what each result was judged, and the stop if one came. */
const play = (commands: string[]) => judgeEachCall(commands.map((command) => ({ tool: 'bash', args: { command }, outcome: { result: '' } })));

describe('world-state: the same silent write again is a repeat (document 003)', () => {
  it('the first run of a silent write is neutral; the same write answering nothing again is seen', () => {
    expect(play([rename, rename]).judged).to.deep.equal(['neutral', 'seen']);
  });

  it('the same silent write over and over, nothing else written, is stopped by a loop rule', () => {
    const { judged, stop } = play(Array(12).fill(rename));
    expect(stop?.action).to.equal('stop');
    expect(judged.length).to.be.below(12);
  });

  it('reworded silent writes (split -b 10m, 10M, --bytes=10M) each acknowledge themselves: neutral', () => {
    const judged = play(['split -b 10m archive.tar.gz part_', 'split -b 10M archive.tar.gz part_', 'split --bytes=10M archive.tar.gz part_']).judged;
    expect(judged).to.deep.equal(['neutral', 'neutral', 'neutral']);
  });

  it('the same silent write after another write (an edit in between) is not a repeat: the world moved', () => {
    const judged = play(['mkdir -p build && cp src/app.js build/', "sed -i 's/debug/release/' src/app.js", 'mkdir -p build && cp src/app.js build/']).judged;
    expect(judged).to.deep.equal(['neutral', 'neutral', 'neutral']);
  });

  it('a silent write of an answer tool never counts as a repeat', () => {
    const run = newRun();
    const judged: Novelty[] = [];
    for (let round = 0; round < 3; round++) {
      run.beginRound();
      const ticket = run.startCall({ tool: 'send_msg_to_user', args: { text: 'Done: 3 files renamed.' } });
      if (ticket.decision.action === 'allow') judged.push(run.finishCall(ticket, { result: '' }));
    }
    expect(judged).to.not.include('seen');
  });
});
