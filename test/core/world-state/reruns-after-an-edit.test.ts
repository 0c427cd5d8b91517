// Re-runs after an edit (issue 18): the same call answering exactly what it answered last time is
// stale only when nothing was written since. The cycles below are the shape of the 7 resolved
// SWE-bench runs (of 371, mini-swe-agent + Gemini 3 Pro) that stale_rounds used to cut: edit,
// run the tests, same failure, another edit, run them again (pytest-dev__pytest-7490), or write
// a new example and rebuild (sphinx-doc__sphinx-8595), or restore a file after other edits
// (astropy__astropy-13236).
import { expect } from 'chai';
import { resolveOptions } from '../../../src/core/policy.js';
import type { RunGuard } from '../../../src/core/run-guard.js';
import type { Novelty, RunDecision } from '../../../src/core/types.js';
import { newRun } from '../play.js';

/** One call per round through `run`: records what each result was judged, returns the run's decision after it. */
function caller(run: RunGuard, judged: string[]) {
  return (tool: string, args: unknown, result: unknown): RunDecision => {
    run.beginRound();
    const ticket = run.startCall({ tool, args });
    judged.push(ticket.decision.action === 'allow' ? run.finishCall(ticket, { result }) : `refused:${ticket.decision.reason}`);
    return run.shouldStop();
  };
}

interface Step {
  command: string;
  output: string;
}

/** One shell call per round, as mini-swe-agent runs them; the novelty of each result, until a stop. */
function play(steps: Step[]): { novelties: Array<Novelty | 'refused'>; stop: string | undefined } {
  const run = newRun();
  const novelties: Array<Novelty | 'refused'> = [];
  for (const step of steps) {
    run.beginRound();
    const ticket = run.startCall({ tool: 'bash', args: { command: step.command } });
    novelties.push(ticket.decision.action === 'allow' ? run.finishCall(ticket, { result: { returncode: step.command.startsWith('pytest') ? 1 : 0, output: step.output } }) : 'refused');
    const after = run.shouldStop();
    if (after.action === 'stop') return { novelties, stop: after.reason };
  }
  return { novelties, stop: undefined };
}

const failing = '=== 1 failed, 12 passed in 0.31s ===\nFAILED test_skipping.py::test_xfail - AssertionError';
const edit = (n: number): Step => ({ command: `sed -i '${260 + n}a\\    print("DEBUG ${n}")' src/_pytest/skipping.py`, output: '' });
const tests: Step = { command: 'pytest -rsx reproduce_issue.py', output: failing };

describe('re-runs after an edit (issue 18)', () => {
  it('the tests run again after each new edit, with the same failure, are neither new nor stale: the run goes on', () => {
    const steps: Step[] = [tests];
    for (let n = 0; n < 8; n++) steps.push(edit(n), tests);
    const { novelties, stop } = play(steps);
    expect(stop).to.equal(undefined);
    expect(novelties).to.have.length(steps.length);
    // Every re-run of the tests after an edit: the run learned nothing, and is not looping either.
    expect(novelties.filter((_, index) => index > 0 && index % 2 === 0)).to.deep.equal(Array(8).fill('neutral'));
  });

  it('the same edit and the same test run, over and over, is still a loop: stopped by stale_rounds', () => {
    const sameEdit = edit(0);
    const steps: Step[] = [];
    for (let n = 0; n < 12; n++) steps.push(sameEdit, tests);
    const { novelties, stop } = play(steps);
    expect(stop).to.equal('stale_rounds');
    // The same edit answering as it did is no change: the second test run is already seen.
    expect(novelties.slice(0, 4)).to.deep.equal(['neutral', 'new', 'neutral', 'seen']);
    // From the third edit on, the same silent edit answering nothing again is a repeat too
    // (silent-writes.test.ts): every round is stale, and the fifth stops the run at call 8.
    expect(novelties).to.deep.equal(['neutral', 'new', 'neutral', 'seen', 'seen', 'seen', 'seen', 'seen']);
  });

  it('a file restored after other edits is restored again, not repeated: git checkout after a sed -i', () => {
    const restore: Step = { command: 'git checkout astropy/table/table.py', output: 'Updated 1 path from the index\n' };
    const { novelties } = play([restore, { command: "sed -i '1242,1247d' astropy/table/table.py", output: '' }, restore]);
    expect(novelties[2]).to.equal('neutral');
  });

  it('the same failing Sphinx test re-run with nothing edited is a repeat, though pytest prints a new base temp directory each run', () => {
    // sphinx-doc__sphinx-* runs in eval/corpus print `base tempdir: /tmp/pytest-of-root/pytest-N`.
    const run = (n: number): Step => ({
      command: 'pytest tests/test_domain_py.py -k test_info_field_list',
      output: `libraries: Sphinx-4.1.0, docutils-0.17.1\nbase tempdir: /tmp/pytest-of-root/pytest-${n}\nrootdir: /testbed\ncollected 1 item\n\ntests/test_domain_py.py F\nFAILED tests/test_domain_py.py::test_info_field_list`,
    });
    const { novelties } = play([run(0), run(1), run(2), run(3)]);
    expect(novelties).to.deep.equal(['new', 'seen', 'refused', 'refused']);
  });

  it("the same failing SymPy test re-run with nothing edited is a repeat, though SymPy's runner draws new random seeds each run", () => {
    // sympy__sympy-* runs in eval/corpus: bin/test prints its seeds in the header of every run.
    const seeds = [[58185801, 2322889254], [11784972, 1637063200], [5745444, 4266025786], [98380169, 4144552456]];
    const steps: Step[] = seeds.map(([seed, hashSeed]) => ({
      command: 'python bin/test sympy/printing/pretty/tests/test_pretty.py -k test_issue_18199',
      output: `executable:         /opt/miniconda3/envs/testbed/bin/python  (3.9.20-final-0) [CPython]\nrandom seed:        ${seed}\nhash randomization: on (PYTHONHASHSEED=${hashSeed})\n\nsympy/printing/pretty/tests/test_pretty.py[1] F\n\n= tests finished: 0 passed, 1 failed, in 0.12 seconds =`,
    }));
    expect(play(steps).novelties).to.deep.equal(['new', 'seen', 'refused', 'refused']);
  });

  it('a read answering the same after only reads in between is still seen', () => {
    const grep: Step = { command: 'grep -n "def test_ndarray_mixin" astropy/table/tests/test_mixin.py', output: '700:def test_ndarray_mixin():\n' };
    const { novelties } = play([grep, { command: 'head -n 20 astropy/table/tests/test_mixin.py', output: '# Licensed under a 3-clause BSD style license\nimport copy\n' }, grep]);
    expect(novelties[2]).to.not.equal('neutral');
  });
});

describe('re-runs after an edit, with SWE-agent commands named as tools (issue 18)', () => {
  it('`edit` is a write: the tests run again after it are not stale; `search_dir` is a read: its repeat with nothing written is refused', () => {
    const results: string[] = [];
    const call = caller(newRun(), results);
    call('bash', { command: 'python reproduce.py' }, 'TypeError: unhashable type');
    call('edit', { start: 10, end: 12, replacement: 'return hash(tuple(x))' }, 'File updated. Please review the changes.');
    call('bash', { command: 'python reproduce.py' }, 'TypeError: unhashable type');
    call('search_dir', { search_term: 'def __hash__' }, 'Found 3 matches for "def __hash__" in /repo');
    call('search_dir', { search_term: 'def __hash__' }, 'Found 3 matches for "def __hash__" in /repo');
    expect(results).to.deep.equal(['new', 'new', 'neutral', 'new', 'refused:repeat.run_wide']);
  });
});

describe('customer-service writes named by their verb (issue 18)', () => {
  const reservations = { passenger: 'Cynthia Hollis', tickets: [{ ticket: '7240005432906569', flight: 'LX0112', seat: '18E' }] };
  const fetch = { tool: 'fetch_user_flight_information', args: {} };

  it('the reservation read again after each booking change is not stale, whatever the verb`s spelling', () => {
    const run = newRun();
    const novelties: string[] = [];
    const call = caller(run, novelties);
    call(fetch.tool, fetch.args, reservations);
    const writes = ['update_ticket_to_new_flight', 'cancelTicket', 'book-car-rental', 'mcp__support__modify_pending_order_address', 'send_confirmation', 'set_seat_preference'];
    for (const [index, tool] of writes.entries()) {
      call(tool, { ticket_no: '7240005432906569', choice: index }, 'Request accepted, but the itinerary is unchanged until the airline confirms.');
      expect(call(fetch.tool, fetch.args, reservations).action, tool).to.equal('continue');
    }
    // Each read after a write: neither new nor stale.
    expect(novelties.filter((_, index) => index > 0 && index % 2 === 0)).to.deep.equal(Array(writes.length).fill('neutral'));
    expect(run.staleRoundStreak).to.equal(0);
  });

  it('a device or account action (tau2 telecom, support bots) is a write: eight fixes each followed by the same failing check are not a loop', () => {
    // Each fix answers the same "OK"; left unknown, nothing changed between the checks and the run stopped at the fifth.
    const fixes = ['toggle_airplane_mode', 'toggle_data', 'reboot_device', 'disconnect_vpn', 'reseat_sim_card', 'make_payment', 'unlock_account', 'resend_activation'];
    const run = newRun();
    const novelties: string[] = [];
    const call = caller(run, novelties);
    for (const [index, tool] of fixes.entries()) {
      expect(call(tool, {}, 'OK').action, tool).to.equal('continue');
      expect(call('check_network_status', {}, index < fixes.length - 1 ? 'Cellular Connection: no_service' : 'Cellular Connection: connected').action, tool).to.equal('continue');
    }
    expect(run.staleRoundStreak).to.equal(0);
    for (const tool of fixes) expect(resolveOptions().tool(tool).effect, tool).to.equal('write');
    // Verbs that as often name a lookup stay unknown.
    for (const tool of ['open_issue_search', 'order_status', 'top_stories']) expect(resolveOptions().tool(tool).effect, tool).to.equal('unknown');
  });

  it('a name that only reads, or merely contains a verb, stays unknown: the same read with nothing written is still seen', () => {
    for (const tool of ['get_user_details', 'search_flights', 'settings_lookup', 'updates_feed']) {
      const run = newRun();
      const play = () => {
        run.beginRound();
        const ticket = run.startCall({ tool, args: { id: 1 } });
        return ticket.decision.action === 'allow' ? run.finishCall(ticket, { result: reservations }) : 'refused';
      };
      expect([play(), play()], tool).to.deep.equal(['new', 'seen']);
    }
  });
});

describe('an edit the editor did not apply changes nothing (issue 18)', () => {
  // str_replace_editor (Anthropic's, SWE-agent's, OpenHands') answers a str_replace whose old_str
  // is not in the file with "No replacement was performed…", and SWE-agent's linted edit with
  // "Your proposed edit has introduced new syntax error(s)… Your changes have NOT been applied."
  // Both are successful tool results: the file is as it was, so the tests run again after one
  // are a repeat, not a re-run after an edit.
  const notApplied = (old: string, prefix = '') =>
    `${prefix}No replacement was performed, old_str \`${old}\` did not appear verbatim in /testbed/src/fields.py.`;
  const rerun = { tool: 'bash', args: { command: 'cd /testbed && python reproduce.py' }, result: 'Traceback (most recent call last):\n  File "reproduce.py", line 2\nAttributeError: x' };

  for (const [editor, failedEdit] of [
    ['str_replace_editor, SWE-agent', (k: number) => ({ tool: 'str_replace_editor', args: { command: 'str_replace', path: '/testbed/src/fields.py', old_str: `    self.x = ${k % 3}`, new_str: '    self.x = 1' }, result: notApplied(`    self.x = ${k % 3}`) })],
    ['str_replace_editor, OpenHands', (k: number) => ({ tool: 'str_replace_editor', args: { command: 'str_replace', path: '/testbed/src/fields.py', old_str: `    self.x = ${k % 3}`, new_str: '    self.x = 1' }, result: notApplied(`    self.x = ${k % 3}`, 'ERROR:\n') })],
    ['str_replace_editor create, OpenHands', (k: number) => ({ tool: 'str_replace_editor', args: { command: 'create', path: '/workspace/reproduce.py', file_text: `from src.fields import F\nprint(F().x)  # ${k % 3}\n` }, result: 'ERROR:\nInvalid `path` parameter: /workspace/reproduce.py. File already exists at: /workspace/reproduce.py. Cannot overwrite files using command `create`.' })],
    // SWE-agent 1.x's own str_replace_editor (tools/edit_anthropic) prints its rejections bare.
    ['str_replace_editor create, SWE-agent', (k: number) => ({ tool: 'str_replace_editor', args: { command: 'create', path: '/testbed/reproduce.py', file_text: `from src.fields import F\nprint(F().x)  # ${k % 3}\n` }, result: 'File already exists at: /testbed/reproduce.py. Cannot overwrite files using command `create`.' })],
    ['str_replace_editor without old_str, SWE-agent', (k: number) => ({ tool: 'str_replace_editor', args: { command: 'str_replace', path: '/testbed/src/fields.py', new_str: `    self.x = ${k % 3}` }, result: 'Parameter `old_str` is required for command: str_replace' })],
    ['SWE-agent 0.x edit', (k: number) => ({ tool: 'bash', args: { command: `edit 251:251\n        self.x = ${k % 3}\nend_of_edit` }, result: `Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\n\nERRORS:\n- E999 IndentationError: unexpected indent (variant ${k % 3})\n\nYour changes have NOT been applied. Please fix your edit command and try again.` })],
  ] as const) {
    it(`${editor}: failed edits cycling with the same test run between them are stopped within 5 stale calls`, () => {
      const run = newRun();
      const judged: string[] = [];
      const call = caller(run, judged);
      let stop: RunDecision | undefined;
      for (let k = 0; k < 8 && stop === undefined; k++) {
        for (const step of [failedEdit(k), rerun]) {
          const after = call(step.tool, step.args, step.result);
          if (after.action === 'stop') {
            stop = after;
            break;
          }
        }
      }
      expect(stop?.action, judged.join(' ')).to.equal('stop');
      // The loop starts at the first re-run's answer (call 2); at most 5 calls run after it.
      expect(judged.filter((novelty) => !novelty.startsWith('refused')).length, judged.join(' ')).to.be.at.most(2 + 5);
    });
  }

  it('an edit that applies still makes the next run of the tests a re-run after an edit', () => {
    const run = newRun();
    const judged: string[] = [];
    const call = caller(run, judged);
    call('bash', rerun.args, rerun.result);
    for (let n = 0; n < 6; n++) {
      call('str_replace_editor', { command: 'str_replace', path: '/testbed/src/fields.py', old_str: `    self.x = ${n}`, new_str: `    self.x = ${n + 1}` }, `The file /testbed/src/fields.py has been edited. Here's the result of running \`cat -n\` on a snippet:\n   251\t    self.x = ${n + 1}\nReview the changes and make sure they are as expected.`);
      expect(call('bash', rerun.args, rerun.result).action).to.equal('continue');
    }
    expect(judged.filter((novelty) => novelty.startsWith('refused'))).to.deep.equal([]);
  });
});
