import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateFile, scoreRun } from '../../eval/eval-run.js';
import type { LoopGuardOptions } from '../../src/core/types.js';

/**
 * A sample of the real recorded runs `npm run eval` scores (eval/corpus, sources in
 * SOURCES.md), kept as regression tests: each is a run the issue-9 rules were built against.
 * The full corpus runs in `npm run eval`; these keep the suite fast.
 */
const corpus = join(import.meta.dirname, '..', '..', 'eval', 'corpus');
interface Entry {
  file: string;
  label: 'healthy' | 'looping' | 'failed_no_loop';
  loopStart?: number;
}
const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8')) as Entry[];
const entry = (file: string): Entry => {
  const found = manifest.find((candidate) => candidate.file === file);
  if (found === undefined) throw new Error(`${file} is not in eval/corpus/manifest.json`);
  return found;
};

async function replay(file: string, options: LoopGuardOptions = {}) {
  const runs = await evaluateFile(join(corpus, file), options);
  expect(runs, file).to.have.length(1);
  return runs[0]!;
}

describe('real recorded runs (eval/corpus sample)', () => {
  const healthy = [
    // mini-swe-agent: edits, re-runs its reproduction script after each fix, greps again.
    'mini-swe-agent-gemini-3-pro/django__django-11265.traj.json',
    'mini-swe-agent-gemini-3-pro/astropy__astropy-12907.traj.json',
    // SWE-agent 1.x and 0.x `.traj` files, read natively: open, edit, re-run the test, submit.
    'swe-agent-testdata/6e44b9__sweagenttestrepo-1c2844.traj',
    'swe-agent-testdata/swe-agent__test-repo-i1.traj',
    // OpenHands CodeActAgent (resolver): eight failed edits of one file in a row, one an exact repeat, then succeeds.
    'openhands-resolver/openhands-resolver-pr-viewer-1.jsonl',
    // Browser agent (BrowserGym on WorkArena): 17 steps through catalog pages, three failed actions, order validated.
    'browsergym-workarena/browsergym-2025-01-02_13-08-04_DemoAgentArgs_on_workarena.servicenow.order-standard-laptop_33.jsonl',
    // Customer-service agent (LangGraph tutorial): eight reworded excursion searches that all return [] across
    // three customer messages, repeated policy look-ups and hotel searches with identical results.
    'langgraph-customer-support/langgraph-customer-support-part-1.jsonl',
    // Customer-service agent with routing tools that return the same hand-off text each time, and one unknown tool.
    'langgraph-customer-support/langgraph-customer-support-part-4.jsonl',
    // AgentDojo travel assistant (gpt-4o), utility check passed: three rounds of up to three parallel look-ups
    // (ratings, prices, addresses) over the same hotels and restaurants, then the answer.
    'agentdojo/gpt-4o-2024-05-13/travel-user_task_17.jsonl',
    // OpenHands CodeActAgent + Claude 3.5 Sonnet, resolved: rewrites its reproduction script three times through
    // "create → File already exists → rm → create → run", with new content and new output each time (32 calls).
    'openhands-swebench-claude/django__django-10880.jsonl',
    // Shell agent (InterCode-Bash, gpt-4), reward 1 on turn 7: six different pipelines, then the right one.
    'intercode-bash/gpt-4/fs1-task47.jsonl',
    // Workplace assistant (WorkBench, gpt-4, LangChain structured chat), checker passed: finds no meeting with lena
    // ("No events found."), looks up her address, sends the mail (dotted tool names, `calendar.search_events`).
    'workbench/gpt-4/domains-multi_domain-65.jsonl',
    // Data agent (InterCode-SQL, gpt-4), reward 1 on turn 7: three guessed column names, each "Unknown column 'x'",
    // then SHOW COLUMNS and the right one.
    'intercode-sql/gpt-4/task369.jsonl',
    // Code interpreter (InterCode-Python, gpt-4), reward 1 on turn 7: six implementations in a row fail the task's
    // hidden tests with the same "Test case did not pass." — a re-run after each edit, not a loop — the seventh passes.
    'intercode-python/gpt-4/task109.jsonl',
  ];
  for (const file of healthy) {
    it(`leaves a successful run alone with the defaults: ${file}`, async () => {
      expect(entry(file).label).to.equal('healthy');
      const run = await replay(file);
      expect(run.report.stop, 'stopped').to.equal(null);
      expect(scoreRun(run, undefined).withheldNew, 'refusals that withheld a result the run had not seen').to.deep.equal([]);
    });
  }

  it('the researcher profile, chosen for a coding agent, refuses re-runs whose output changed (why general is the default)', async () => {
    const run = await replay('mini-swe-agent-gemini-3-pro/django__django-11265.traj.json', { profile: 'researcher' });
    expect(scoreRun(run, undefined).withheldNew.length).to.be.greaterThan(3);
  });

  const loops = [
    'react-webshop/react-webshop-fixed_24.jsonl',
    'react-webshop/react-webshop-fixed_31.jsonl',
    'react-fever/react-fever-3033.jsonl',
    // Browser agent scrolling an unchanged page 85 times (the loop is in the middle of the run, not at its end).
    'browsergym-workarena/browsergym-2025-01-02_11-59-10_DemoAgentArgs_on_workarena.servicenow.order-loaner-laptop_12.jsonl',
    // AgentDojo travel assistant (Llama 3.3 70B) alternating two look-ups with identical results until the step limit.
    'agentdojo/meta-llama_Llama-3.3-70B-Instruct/travel-user_task_14.jsonl',
    // AgentDojo travel assistant (Claude 3 Haiku) re-running the restaurant look-ups it already has, in a cycle.
    'agentdojo/claude-3-haiku-20240307/travel-user_task_18.jsonl',
    // Shell agent (InterCode-Bash, gpt-4): the same `df -h … | grep -q …` check, empty output, 9 times to the turn cap.
    'intercode-bash/gpt-4/fs3-task44.jsonl',
    // Shell agent (InterCode-Bash, gpt-4): the same count of file extensions, "3", behind a different trim each time,
    // the exact pipelines coming back from turn 8.
    'intercode-bash/gpt-4/fs3-task31.jsonl',
    // CTF agent (InterCode-CTF, gpt-4) running its own refusal, "I'm sorry, but I can't assist with that.", as a shell
    // command turn after turn, each failing with the same bash error.
    'intercode-ctf/gpt-4/task20.jsonl',
    // Workplace assistant (WorkBench, claude-2): the same bar chart asked for 13 times with identical arguments.
    'workbench/claude-2/all-analytics-7.jsonl',
    // Data agent (InterCode-SQL, gpt-4): a statement broken the same way (a CTE's tail without its head), respaced
    // and resent nine times, each the same syntax error.
    'intercode-sql/gpt-4/task854.jsonl',
    // Code interpreter (InterCode-Python, gpt-3.5): three versions of one function resubmitted in turn, each
    // failing all three tests again.
    'intercode-python/gpt-3.5/task52.jsonl',
  ];
  for (const file of loops) {
    it(`stops a recorded loop by a loop rule within 5 stale calls: ${file}`, async () => {
      const { label, loopStart } = entry(file);
      expect(label).to.equal('looping');
      const run = await replay(file);
      expect(run.report.stop?.reason).to.be.oneOf(['stale_rounds', 'refused_rounds']);
      expect(scoreRun(run, loopStart).staleCalls).to.be.at.most(5);
    });
  }

  it('lets a run guess new names that all come back empty: an empty result is a new fact (document 000)', async () => {
    // Labelled looping by the corpus's mechanical stretch rule (12 identical `{}` results in a row), but every call
    // asks about a name not asked before, in 3 rounds of 4 parallel calls, and round 4 gets real hotel lists.
    const file = 'agentdojo/command-r/travel-user_task_19.jsonl';
    expect(entry(file).label).to.equal('looping');
    const run = await replay(file);
    expect(run.report.stop, 'stopped').to.equal(null);
    expect(scoreRun(run, entry(file).loopStart).refusals, 'refused calls').to.equal(0);
  });

  it('stops a loop its recording cuts short (7 steps), its refused repeats continuing the stale streak, before the recording ends', async () => {
    const file = 'react-fever/react-fever-6055.jsonl';
    const run = await replay(file);
    const score = scoreRun(run, entry(file).loopStart);
    expect(score.halted, 'stopped, not merely halted').to.equal(false);
    // Three seen results, then refused repeats: one stale streak (round-verdict.ts), stopped at round 6; before, the
    // refused-rounds stop came a round later.
    expect(run.report.stop).to.include({ reason: 'stale_rounds', round: 6 });
    expect(score.refusals).to.equal(2);
    expect(score.staleCalls).to.be.at.most(5);
    // Researcher keeps document 000's five refused rounds: on this shorter loop the recording
    // ends first, and the run is only halted.
    const short = 'react-fever/react-fever-5074.jsonl';
    expect(scoreRun(await replay(short), entry(short).loopStart).halted, 'general stops it').to.equal(false);
    expect(scoreRun(await replay(short, { profile: 'researcher' }), entry(short).loopStart).halted, 'researcher halts it').to.equal(true);
  });
});
