import { expect } from 'chai';
import { resolveOptions } from '../../../src/core/policy.js';
import { fingerprintResult } from '../../../src/core/result-fingerprint.js';
import { isEmptyResultNotice } from '../../../src/core/world-state/is-empty-result-notice.js';
import { newRun, playRounds, type ScriptedCall } from '../play.js';

const options = resolveOptions({});
const swe = 'Your command ran successfully and did not produce any output.';

describe('world-state: a notice standing for an empty result is one (document 000)', () => {
  it('knows the notices of SWE-agent and of transcript formats that write one, and nothing that merely says more', () => {
    for (const notice of [swe, 'Your last command ran successfully and did not produce any output.', 'Tool ran without output or errors', '<system>Tool ran without output or errors</system>', `  ${swe}\n`]) {
      expect(isEmptyResultNotice(notice), notice).to.equal(true);
      expect(fingerprintResult(notice, options.defaultTool, options.maxFingerprintBytes), notice).to.deep.equal({ outcome: 'empty' });
    }
    // An MCP tool's text content carrying the notice is the same empty result.
    expect(fingerprintResult({ content: [{ type: 'text', text: swe }] }, options.defaultTool, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    for (const data of [`${swe}\n(Open file: /repo/a.py)`, 'Tool ran without output', 'ok', '']) expect(isEmptyResultNotice(data), data).to.equal(false);
  });

  it('six different greps that find nothing, each answered with SWE-agent\'s notice, then one that finds the class: not stopped, nothing refused', () => {
    const rounds: ScriptedCall[][] = ['foo_bar', 'FooBar', 'foo-bar', 'fooBar', 'FOO_BAR', 'foobar'].map((word) => [
      { tool: 'bash', args: { command: `grep -rn "${word}" /testbed/src` }, outcome: { result: swe } },
    ]);
    rounds.push([{ tool: 'bash', args: { command: 'grep -rn "Foo" /testbed/src' }, outcome: { result: '/testbed/src/a.py:3: class Foo:' } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(7).fill('continue'));
    expect(log.flatMap((round) => round.decisions.map((decision) => decision.action))).to.deep.equal(Array(7).fill('allow'));
  });

  // @modelcontextprotocol/server-filesystem's search_files answers "No matches found" (its text
  // content and structuredContent) when a glob matches nothing.
  it('file searches by six new patterns answered "No matches found" (MCP filesystem server), then a match: not stopped', () => {
    const none = { content: [{ type: 'text', text: 'No matches found' }], structuredContent: { content: 'No matches found' } };
    const rounds: ScriptedCall[][] = ['**/*.proto', '**/*.pb', '**/schema*', '**/*.avsc', '**/*.thrift', '**/idl/**'].map((pattern) => [
      { tool: 'search_files', args: { path: '/repo', pattern }, outcome: { result: none } },
    ]);
    rounds.push([{ tool: 'search_files', args: { path: '/repo', pattern: '**/*.graphql' }, outcome: { result: { content: [{ type: 'text', text: '/repo/api/schema.graphql' }] } } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(7).fill('continue'));
    expect(isEmptyResultNotice('No files found')).to.equal(true);
    expect(isEmptyResultNotice('No matches found for pattern "x" in path "."')).to.equal(false);
  });

  // WorkBench, gpt-3.5, calendar query 57 (eval/corpus/scripts/src-workbench.mjs): "Cancel my next
  // meeting with dmitri", searched day by day, each day answered "No events found.".
  it('a calendar searched day by day, each day answered "No events found.", then the meeting: not stopped (WorkBench calendar 57)', () => {
    const day = (date: string, result: unknown): ScriptedCall[] => [{ tool: 'calendar.search_events', args: { query: 'dmitri', time_min: `${date} 00:00:00`, time_max: `${date} 23:59:59` }, outcome: { result } }];
    const rounds = ['2023-11-30', '2023-12-01', '2023-12-02', '2023-12-03', '2023-12-04', '2023-12-05'].map((date) => day(date, 'No events found.'));
    rounds.push(day('2023-12-06', [{ event_id: '00000128', event_name: 'strategic planning meeting', participant_email: 'dmitri.ivanov@atlas.com' }]));
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(7).fill('continue'));
    for (const notice of ['No events found.', 'No emails found.', 'No results found', 'No matching records found.']) expect(isEmptyResultNotice(notice), notice).to.equal(true);
    for (const data of ['Email not found.', 'No events found. Try a wider window.', 'No events found for dmitri in the calendar of the whole team']) expect(isEmptyResultNotice(data), data).to.equal(false);
  });

  it('pages past the end whose notice echoes the page ("No results found for page 7.", "Page 7 is out of range") are empty pages of an ended listing: stopped within 5', () => {
    for (const notice of [(page: number) => `No results found for page ${page}.`, (page: number) => `Page ${page} is out of range (3 pages).`, (page: number) => `Page ${page} does not exist.`]) {
      const page = (n: number, result: string): ScriptedCall[] => [{ tool: 'web_search', args: { query: 'loop detection agents', page: n }, outcome: { result } }];
      const rounds = [1, 2, 3].map((n) => page(n, `${n}. Result ${n}: https://example.com/${n}`));
      for (let n = 4; n <= 12; n++) rounds.push(page(n, notice(n)));
      const log = playRounds(newRun(), rounds);
      const stoppedAt = log.findIndex((round) => round.after.action === 'stop');
      expect(stoppedAt, notice(7)).to.be.within(3, 3 + 5);
      expect(log[stoppedAt]!.after).to.include({ reason: 'stale_rounds' });
      expect(isEmptyResultNotice(notice(7)), notice(7)).to.equal(true);
    }
    // The same words about something else are text: a report, not a page past the end.
    for (const data of ['Page 7 is out of range of the printer tray', 'No results found for dmitri.', 'Page not found']) expect(isEmptyResultNotice(data), data).to.equal(false);
  });

  it('the same silent command run again and again with nothing written is still a repeat, as with an empty output', () => {
    const same = (result: string): ScriptedCall[][] => Array.from({ length: 8 }, () => [{ tool: 'bash', args: { command: 'python check.py' }, outcome: { result } }]);
    const withNotice = playRounds(newRun(), same(swe));
    const withEmpty = playRounds(newRun(), same(''));
    expect(withNotice.at(-1)!.after.action).to.equal('stop');
    expect(withNotice.map((round) => [round.after.action, round.decisions.map((decision) => decision.action)])).to.deep.equal(
      withEmpty.map((round) => [round.after.action, round.decisions.map((decision) => decision.action)]),
    );
  });

  // InterCode-Bash fs_1 task 41 (gpt-4, eval/WIDE.md): five reworded `find … -exec grep -c … | awk`
  // counts print "0", the sixth prints "2", the answer. Read as text, "0" four times was a stale
  // answer and the ladder switched `find` off before the answer came (a refusal that withheld it).
  it('a text that is only the count zero ("0\n") is no fact, like the number 0: six reworded counts, then the answer, go on', () => {
    expect(fingerprintResult('0\n', options.defaultTool, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(' 0 ', options.defaultTool, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    for (const data of ['00', '0.0', '0 files', '10']) expect(fingerprintResult(data, options.defaultTool, options.maxFingerprintBytes), data).to.have.property('resultHash');
    const patterns = ["'\\w'", "'[[:alnum:]]'", "-E '\\w+'", "-P '\\w+'", "-e '[a-z0-9]'"];
    const rounds: ScriptedCall[][] = patterns.map((pattern) => [{ tool: 'bash', args: { command: `find /testbed -type f -name "*.php" -exec grep -c ${pattern} {} + | awk '{s += $1} END {print s}'` }, outcome: { result: '0\n' } }]);
    rounds.push([{ tool: 'bash', args: { command: "find /testbed -type f -name '*.php' -exec grep -E '\\w+' {} + | wc -l" }, outcome: { result: '2\n' } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.flatMap((round) => round.decisions.map((decision) => decision.action))).to.deep.equal(Array(6).fill('allow'));
    expect(log.at(-1)!.after.action).to.equal('continue');
  });
});
