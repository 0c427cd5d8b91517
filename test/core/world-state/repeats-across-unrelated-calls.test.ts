// Repeats across unrelated calls (issue 18 item 4): a read repeated with the same result is a
// repeat whatever other tools ran in between, unless something in between could have changed
// what it reads. Browser actions change the page, never the workspace.
import { expect } from 'chai';
import { kinds, newRun, playRounds, type ScriptedCall } from '../play.js';

const listing = 'package.json\nsrc\ntest\n';
const command = (line: string, output: string): ScriptedCall => ({ tool: 'execute_command', args: { command: line }, outcome: { result: output } });
/** Roo Code's browser tool: each scroll answers with a new screenshot description. */
const scroll = (n: number): ScriptedCall => ({ tool: 'browser_action', args: { action: 'scroll_down' }, outcome: { result: { screenshot: `viewport-${n}`, currentUrl: 'http://localhost:3000' } } });

describe('repeats across unrelated calls (issue 18 item 4)', () => {
  it('Roo Code: the same `ls` with the same output three times, with browser scrolls in between, is stuck at the third', () => {
    // `ls` is a read: its repeat is refused as soon as nothing in between could have changed the
    // listing — the scrolls cannot — so the model is told at the second and never runs a third.
    const read = playRounds(newRun(), [[command('ls', listing)], [scroll(1)], [command('ls', listing)], [scroll(2)], [command('ls', listing)]]);
    expect(kinds(read.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:new', 'refuse:repeat.run_wide', 'allow:repeat', 'refuse:repeat.run_wide']);
    // A command whose effect is unknown runs until its outcomes confirm nothing changes: the
    // third identical run with the same output is refused, as in Roo's detector.
    const unknown = playRounds(newRun(), [
      [command('./status.sh', 'build: idle')],
      [scroll(1)],
      [command('./status.sh', 'build: idle')],
      [scroll(2)],
      [command('./status.sh', 'build: idle')],
    ]);
    expect(kinds(unknown.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:new', 'allow:repeat', 'allow:repeat', 'refuse:repeat.unchanged']);
  });

  it('a call in between that could have changed what the read sees lets the read run again', () => {
    const log = playRounds(newRun(), [
      [command('ls', listing)],
      [scroll(1)],
      [{ tool: 'write_to_file', args: { path: 'notes.md', content: 'x' }, outcome: { result: 'written' } }],
      [command('ls', `${listing}notes.md\n`)],
      // A tool nobody knows may write anything: the listing may have changed again.
      [{ tool: 'deploy_preview', args: { branch: 'main' }, outcome: { result: { url: 'https://preview.example' } } }],
      [command('ls', `${listing}notes.md\n`)],
    ]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:new', 'allow:new', 'allow:reread', 'allow:new', 'allow:reread']);
  });

  it('a file write makes the page out of date too: the same page action runs again after it', () => {
    const page = { screenshot: 'same' };
    const click: ScriptedCall = { tool: 'browser_action', args: { action: 'click', coordinate: '10,10' }, outcome: { result: page } };
    const log = playRounds(newRun(), [
      [click],
      [click],
      [{ tool: 'write_to_file', args: { path: 'index.html', content: '<h1>v2</h1>' }, outcome: { result: 'written' } }],
      [click],
    ]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:repeat', 'allow:new', 'allow:repeat']);
  });
});
