// Issue 24 #6: reads of the same file judged by the range of lines they return.
import { expect } from 'chai';
import { resolveOptions } from '../../../src/core/policy.js';
import { readWindowRequestOf } from '../../../src/core/world-state/read-window-request-of.js';
import { isWindowCovered, recordWindow, type ReadCoverage } from '../../../src/core/world-state/read-coverage.js';
import { returnedWindowOf } from '../../../src/core/world-state/returned-window-of.js';
import { newRun } from '../play.js';

const options = resolveOptions({});
const requestOf = (tool: string, args: unknown) => readWindowRequestOf(tool, options.tool(tool), args);
const END = Number.MAX_SAFE_INTEGER;

describe('window re-reads (issue 24 #6)', () => {
  describe('the window a read asks for', () => {
    it('str_replace_editor view, whole or with view_range (-1: to the end)', () => {
      expect(requestOf('str_replace_editor', { command: 'view', path: '/w/a.py' })).to.deep.equal({ resource: '/w/a.py', numbered: true });
      expect(requestOf('str_replace_editor', { command: 'view', path: '/w/a.py', view_range: [10, 40] })).to.deep.equal({ resource: '/w/a.py', numbered: true, ranges: [[10, 40]] });
      expect(requestOf('str_replace_editor', { command: 'view', path: '/w/a.py', view_range: [100, -1] })).to.deep.equal({ resource: '/w/a.py', numbered: true, ranges: [[100, END]] });
      expect(requestOf('str_replace_editor', { command: 'str_replace', path: '/w/a.py', old_str: 'a', new_str: 'b' })).to.equal(undefined);
    });

    it("Claude Code Read (1-based offset), gemini-cli read_file (0-based offset), start/end lines, read_text_file's head", () => {
      expect(requestOf('Read', { file_path: '/r/a.py', offset: 40, limit: 30 })).to.deep.equal({ resource: '/r/a.py', numbered: true, ranges: [[40, 69]] });
      expect(requestOf('Read', { file_path: '/r/a.py' })).to.deep.equal({ resource: '/r/a.py', numbered: true });
      expect(requestOf('read_file', { absolute_path: '/r/a.py', offset: 0, limit: 50 })).to.deep.equal({ resource: '/r/a.py', numbered: false, ranges: [[1, 50]] });
      expect(requestOf('read_file', { target_file: 'a.py', start_line_one_indexed: 5, end_line_one_indexed_inclusive: 9 })).to.deep.equal({ resource: 'a.py', numbered: false, ranges: [[5, 9]] });
      expect(requestOf('read_file', { path: 'a.py', start_line: 5, end_line: 9 })).to.deep.equal({ resource: 'a.py', numbered: false, ranges: [[5, 9]] });
      expect(requestOf('read_text_file', { path: 'a.py', head: 20 })).to.deep.equal({ resource: 'a.py', numbered: false, ranges: [[1, 20]] });
      expect(requestOf('read_text_file', { path: 'a.py', tail: 20 })).to.equal(undefined);
      expect(requestOf('search_docs', { path: 'a.py' })).to.equal(undefined);
    });

    it('shell reads: cat, cat -n, nl -ba, head, tail -n +K, sed -n (several ranges), a window of a piped whole file, after cd', () => {
      const shell = (command: string) => requestOf('bash', { command });
      expect(shell('cat src/a.py')).to.deep.equal({ resource: 'src/a.py', numbered: false });
      expect(shell('cat -n ./src/a.py')).to.deep.equal({ resource: 'src/a.py', numbered: true });
      expect(shell("nl -ba django/db/models/deletion.py | sed -n '90,120p'")).to.deep.equal({ resource: 'django/db/models/deletion.py', numbered: true, ranges: [[90, 120]] });
      expect(shell("sed -n '240,260p;420,440p' f.py")).to.deep.equal({ resource: 'f.py', numbered: false, ranges: [[240, 260], [420, 440]] });
      expect(shell("sed -n '1,$p' f.py")).to.deep.equal({ resource: 'f.py', numbered: false, ranges: [[1, END]] });
      expect(shell('head -n 20 a.py')).to.deep.equal({ resource: 'a.py', numbered: false, ranges: [[1, 20]] });
      expect(shell('head -30 a.py')).to.deep.equal({ resource: 'a.py', numbered: false, ranges: [[1, 30]] });
      expect(shell('tail -n +50 a.py')).to.deep.equal({ resource: 'a.py', numbered: false, ranges: [[50, END]] });
      expect(shell('cd /testbed && cat -n a.py')).to.deep.equal({ resource: '/testbed/a.py', numbered: true });
      for (const line of ['goto 120', 'scroll_down', 'scroll_up', 'open "/r/x.py"', 'open src/x.py 200']) expect(shell(line), line).to.deep.equal({ numbered: true });
    });

    it('anything it cannot read for sure is no window: filtered, redirected, chained, of unknown length, expanded', () => {
      for (const line of ['cat a.py | grep def', 'cat a.py > b.py', 'cat a.py && rm a.py', 'tail -n 20 a.py', 'nl a.py', "sed -n '/class/,/def/p' a.py", 'cat $FILE', 'cat $(ls *.py)', "cat <<'EOF' > x.py", 'cat a.py b.py', 'sed -n 5p a.py | cat -n']) {
        expect(requestOf('bash', { command: line }), line).to.equal(undefined);
      }
    });
  });

  describe('the window a read returned', () => {
    it("SWE-agent's viewer: the file from its header, the lines it printed", () => {
      const output = '[File: /repo/src/parser.py (412 lines total)]\n(59 more lines above)\n60:def parse(text):\n61:    return text\n62:\n(350 more lines below)';
      expect(returnedWindowOf({ numbered: true }, output)).to.deep.equal({ resource: '/repo/src/parser.py', numbered: true, ranges: [[60, 62]] });
    });

    it('numbered output counts the lines shown: a clipped view, several sed ranges', () => {
      const clipped = "Here's the result of running `cat -n` on /w/a.py:\n     1\timport os\n     2\t\n     3\tx = 1\n<response clipped><NOTE>To save on context only part of this file has been shown to you.</NOTE>";
      expect(returnedWindowOf({ resource: '/w/a.py', numbered: true }, clipped)).to.deep.equal({ resource: '/w/a.py', numbered: true, ranges: [[1, 3]] });
      expect(returnedWindowOf({ resource: 'f', numbered: true, ranges: [[1, 2], [9, 10]] }, { returncode: 0, output: '     1\ta\n     2\tb\n     9\tc\n    10\td\n' })).to.deep.equal({ resource: 'f', numbered: true, ranges: [[1, 2], [9, 10]] });
      expect(returnedWindowOf({ resource: 'f', numbered: true }, '     7→const a = 1;\n     8→')).to.deep.equal({ resource: 'f', numbered: true, ranges: [[7, 8]] });
    });

    it('plain output covers the lines asked for, clamped to the lines it has (the file ends there); a cut or empty output, or a failed command, is no window', () => {
      expect(returnedWindowOf({ resource: 'f', numbered: false }, 'a\nb\nc\n')).to.deep.equal({ resource: 'f', numbered: false, ranges: [[1, 3]], lastLine: 3 });
      expect(returnedWindowOf({ resource: 'f', numbered: false, ranges: [[5, END]] }, 'a\nb')).to.deep.equal({ resource: 'f', numbered: false, ranges: [[5, 6]], lastLine: 6 });
      expect(returnedWindowOf({ resource: 'f', numbered: false }, 'a\n[123 characters elided]\nz')).to.equal(undefined);
      expect(returnedWindowOf({ resource: 'f', numbered: false }, '')).to.equal(undefined);
      expect(returnedWindowOf({ resource: 'f', numbered: false }, { returncode: 1, output: 'cat: f: No such file or directory' })).to.equal(undefined);
    });
  });

  describe('coverage', () => {
    it('a window inside lines already shown is covered; one line past them is not; numbers are news after a plain read', () => {
      const coverage: ReadCoverage = new Map();
      recordWindow(coverage, { resource: 'f', numbered: false, ranges: [[1, 50]] });
      recordWindow(coverage, { resource: 'f', numbered: false, ranges: [[51, 100]] });
      expect(isWindowCovered(coverage, { resource: 'f', numbered: false, ranges: [[40, 90]] })).to.equal(true);
      expect(isWindowCovered(coverage, { resource: 'f', numbered: false, ranges: [[90, 101]] })).to.equal(false);
      expect(isWindowCovered(coverage, { resource: 'f', numbered: true, ranges: [[40, 60]] })).to.equal(false);
      expect(isWindowCovered(coverage, { resource: 'g', numbered: false, ranges: [[1, 2]] })).to.equal(false);
      recordWindow(coverage, { resource: 'f', numbered: true, ranges: [[10, 20]] });
      expect(isWindowCovered(coverage, { resource: 'f', numbered: true, ranges: [[12, 18]] })).to.equal(true);
    });
  });

  describe('through the engine', () => {
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i + 1} of the module`);
    const read = (offset?: number, limit?: number) => {
      const from = offset ?? 1;
      const to = limit === undefined ? lines.length : from + limit - 1;
      return {
        call: { tool: 'Read', args: offset === undefined ? { file_path: '/r/m.py' } : { file_path: '/r/m.py', offset, limit } },
        outcome: { result: lines.slice(from - 1, to).map((line, i) => `${String(from + i).padStart(6)}→${line}`).join('\n') },
      };
    };
    function novelties(steps: Array<{ call: { tool: string; args: unknown }; outcome: { result: unknown } }>): string[] {
      const run = newRun();
      return steps.map(({ call, outcome }) => {
        run.beginRound();
        const ticket = run.startCall(call);
        return ticket.decision.action === 'allow' ? run.finishCall(ticket, outcome) : ticket.decision.reason;
      });
    }

    it('whole, then windows inside it: seen; a window reaching past what was shown: new', () => {
      expect(novelties([read(), read(10, 20), read(50, 30)])).to.deep.equal(['new', 'seen', 'seen']);
      expect(novelties([read(1, 60), read(40, 30), read(10, 20)])).to.deep.equal(['new', 'new', 'seen']);
    });

    it('a write in between makes the same window news again; a changed meaningful value is new', () => {
      const edit = { call: { tool: 'Edit', args: { file_path: '/r/m.py', old_string: 'line 15', new_string: 'line fifteen' } }, outcome: { result: 'The file /r/m.py has been updated.' } };
      expect(novelties([read(), edit, read(10, 20), read(12, 5)])).to.deep.equal(['new', 'new', 'new', 'seen']);
    });

    it('the range is carried in the run log: an engine rebuilt from the log judges the next window the same', async () => {
      const { createMemoryRunStore } = await import('../../../src/core/shared-ledger/create-memory-run-store.js');
      const { LoopGuard } = await import('../../../src/core/loop-guard.js');
      const store = createMemoryRunStore();
      const writer = new LoopGuard({ store, logger: { warn: () => undefined } });
      const run = writer.startRun('windows');
      run.beginRound();
      const whole = read();
      run.finishCall(await run.claimCall(whole.call), whole.outcome);
      await writer.flush();
      const replica = await new LoopGuard({ store, logger: { warn: () => undefined } }).resumeRun('windows');
      replica.beginRound();
      const window = read(30, 20);
      expect(replica.finishCall(await replica.claimCall(window.call), window.outcome)).to.equal('seen');
    });
  });
});
