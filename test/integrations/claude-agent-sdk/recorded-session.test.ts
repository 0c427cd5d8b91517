// Recorded Claude Code sessions driven through the hooks, hook input by hook input as Claude
// Code fired them (typed with the SDK's hook input types), must take the decisions
// `loopguard replay` takes on the same session log: the same calls denied for the same
// reasons, the same stop in the same round, per run (main thread and each subagent).
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createLoopGuardHooks } from '../../../src/integrations/claude-agent-sdk/index.js';
import { replayFiles, tempDir } from '../../replay/replay-test-helpers.js';
import { claudeCodeSessionHookInputs, fireHooks } from './claude-code-session-hook-inputs.js';
import { claudeCodeSessionLines, type ScriptedResponse } from './claude-code-session-lines.js';

const RECORDED_FIXTURE = new URL('../../replay/formats/fixtures/claude-code-session.jsonl', import.meta.url).pathname;

interface RunDecisions {
  decisions: string[];
  stop: string | undefined;
}

/** Drives every recorded round through one query's hooks; decisions per loopguard run. */
async function decisionsThroughHooks(path: string, sessionId: string): Promise<{ runs: Map<string, RunDecisions>; halted: string[] }> {
  const guarded = createLoopGuardHooks({ guard: new LoopGuard(), runId: sessionId });
  const perCall: Array<{ run: string; tool: string; callId: string; denied: boolean }> = [];
  const halted: string[] = [];
  for (const round of claudeCodeSessionHookInputs(path)) {
    for (const input of round.inputs) {
      const outputs = await fireHooks(guarded.hooks, input);
      if (input.hook_event_name !== 'PreToolUse') continue;
      const output = outputs[0]!;
      const denied = 'hookSpecificOutput' in output && output.hookSpecificOutput?.hookEventName === 'PreToolUse' && output.hookSpecificOutput.permissionDecision === 'deny';
      if ('continue' in output && output.continue === false) halted.push(input.tool_use_id);
      const run = input.agent_id === undefined ? sessionId : `${sessionId}/sidechain/${input.agent_id}`;
      perCall.push({ run, tool: input.tool_name, callId: input.tool_use_id, denied });
    }
  }
  const outcome = guarded.end();
  const outcomes = new Map([[sessionId, outcome], ...Object.entries(outcome.subagents).map(([agentId, sub]) => [`${sessionId}/sidechain/${agentId}`, sub] as const)]);
  const runs = new Map<string, RunDecisions>();
  for (const call of perCall) {
    const runOutcome = outcomes.get(call.run)!;
    let entry = runs.get(call.run);
    if (entry === undefined) {
      entry = { decisions: [], stop: runOutcome.stop ? `${runOutcome.stop.reason}@${runOutcome.stop.round}` : undefined };
      runs.set(call.run, entry);
    }
    const refusal = runOutcome.refusals.find((candidate) => candidate.callId === call.callId);
    expect(refusal !== undefined, `a denied call is a delivered refusal (${call.callId})`).to.equal(call.denied);
    entry.decisions.push(`${call.tool}:${refusal === undefined ? 'allow' : refusal.reason === 'run.stopped' ? 'skip' : `refuse ${refusal.reason}`}`);
  }
  return { runs, halted };
}

async function decisionsThroughReplay(path: string): Promise<Map<string, RunDecisions>> {
  const { runs, problems } = await replayFiles([path]);
  expect(problems).to.deep.equal([]);
  return new Map(
    runs.map((run) => [
      run.run,
      {
        decisions: run.decisions.map((decision) => `${decision.tool}:${decision.decision === 'refuse' ? `refuse ${decision.reason}` : decision.decision}`),
        stop: run.stop ? `${run.stop.reason}@${run.stop.round}` : undefined,
      },
    ]),
  );
}

const bash = (command: string, stdout: string, description = 'Run it'): ScriptedResponse['uses'][number] => ({
  name: 'Bash',
  input: { command, description },
  text: stdout,
  structured: { stdout, stderr: '', interrupted: false, isImage: false },
});
const read = (filePath: string, content: string): ScriptedResponse['uses'][number] => ({
  name: 'Read',
  input: { file_path: filePath },
  text: content.split('\n').map((line, index) => `${String(index + 1).padStart(6)}→${line}`).join('\n'),
  structured: { type: 'text', file: { filePath, content, numLines: content.split('\n').length, startLine: 1, totalLines: content.split('\n').length } },
});
const grep = (pattern: string, path: string, filenames: string[], durationMs: number): ScriptedResponse['uses'][number] => ({
  name: 'Grep',
  input: { pattern, path, output_mode: 'files_with_matches' },
  text: `Found ${filenames.length} files\n${filenames.join('\n')}`,
  structured: { mode: 'files_with_matches', filenames, numFiles: filenames.length, durationMs },
});

/** A session that loops: the date parser bug is never found, the agent searches on and on. */
function loopingSession(sessionId: string): string {
  const parser = 'export function parseDate(text: string) {\n  return new Date(text);\n}';
  const same = ['src/parse.ts', 'test/parse.test.ts'];
  const responses: ScriptedResponse[] = [
    { uses: [{ name: 'Bash', input: { command: 'npm test', description: 'Run the tests' }, text: 'Exit code 1\nFAIL test/parse.test.ts\n  expected 2026-03-01, got Invalid Date', isError: true }] },
    { uses: [read('/work/app/src/parse.ts', parser), grep('parseDate', 'src', same, 41)] },
    { uses: [bash('ls src test', 'src:\nparse.ts\n\ntest:\nparse.test.ts')] },
    { uses: [grep('parseDate\\(', '.', same, 38)] },
    { uses: [read('/work/app/src/parse.ts', parser)] },
    { uses: [grep('function parseDate', '.', same, 52)] },
    { uses: [bash('ls src test', 'src:\nparse.ts\n\ntest:\nparse.test.ts')] },
    { uses: [grep('parseDate\\(text', '.', same, 33)] },
    { uses: [grep('parseDate\\b', 'src', same, 35)] },
    { uses: [grep('export function parseDate', '.', same, 31)] },
    { uses: [grep('parseDate', 'src', same, 29)] },
    { uses: [read('/work/app/src/parse.ts', parser)] },
  ];
  const path = join(tempDir(), `claude-code-looping-${sessionId}.jsonl`);
  writeFileSync(path, claudeCodeSessionLines(sessionId, 'why does test/parse.test.ts fail?', responses, 'I could not find the cause.').join('\n') + '\n');
  return path;
}

/** An honest session: run the tests, read, edit, re-run them, edit again, re-run: all new. */
function honestSession(sessionId: string): string {
  const responses: ScriptedResponse[] = [
    { uses: [{ name: 'Bash', input: { command: 'npm test', description: 'Run the tests' }, text: 'Exit code 1\nFAIL test/parse.test.ts\n  expected 2026-03-01, got Invalid Date', isError: true }] },
    { uses: [read('/work/app/src/parse.ts', 'export function parseDate(text: string) {\n  return new Date(text);\n}')] },
    { uses: [{ name: 'Edit', input: { file_path: '/work/app/src/parse.ts', old_string: 'new Date(text)', new_string: 'new Date(`${text}T00:00:00Z`)' }, text: 'The file /work/app/src/parse.ts has been updated.', structured: { filePath: '/work/app/src/parse.ts', oldString: 'new Date(text)', newString: 'new Date(`${text}T00:00:00Z`)' } }] },
    { uses: [{ name: 'Bash', input: { command: 'npm test', description: 'Run the tests again' }, text: 'Exit code 1\nFAIL test/parse.test.ts\n  expected 2026-03-01, got 2026-02-28', isError: true }] },
    { uses: [{ name: 'Edit', input: { file_path: '/work/app/src/parse.ts', old_string: 'new Date(`${text}T00:00:00Z`)', new_string: 'parseIsoDate(text)' }, text: 'The file /work/app/src/parse.ts has been updated.', structured: { filePath: '/work/app/src/parse.ts' } }] },
    { uses: [bash('npm test', 'PASS test/parse.test.ts\nTests: 4 passed', 'Run the tests once more')] },
    { uses: [read('/work/app/src/parse.ts', 'export function parseDate(text: string) {\n  return parseIsoDate(text);\n}')] },
  ];
  const path = join(tempDir(), `claude-code-honest-${sessionId}.jsonl`);
  writeFileSync(path, claudeCodeSessionLines(sessionId, 'fix test/parse.test.ts', responses, 'Fixed: dates are parsed as ISO dates.').join('\n') + '\n');
  return path;
}

/**
 * A long session that outlives its context: the agent reads the code, Claude Code compacts the
 * conversation, and the agent reads the same files again to pick the work back up.
 */
function compactedSession(sessionId: string, compacted: boolean): string {
  const parser = 'export function parseDate(text: string) {\n  return new Date(text);\n}';
  const test = "import { parseDate } from '../src/parse';\nexpect(parseDate('2026-03-01')).toEqual(new Date('2026-03-01'));";
  const orientation: ScriptedResponse[] = [
    { uses: [read('/work/app/src/parse.ts', parser)] },
    { uses: [read('/work/app/test/parse.test.ts', test)] },
    { uses: [grep('parseDate', 'src', ['src/parse.ts'], 41)] },
  ];
  const responses: ScriptedResponse[] = [...orientation, ...orientation.map((response, index) => ({ ...response, compactedBefore: compacted && index === 0 }))];
  const path = join(tempDir(), `claude-code-compacted-${sessionId}-${compacted}.jsonl`);
  writeFileSync(path, claudeCodeSessionLines(sessionId, 'fix test/parse.test.ts', responses, 'Picked up where I left off.').join('\n') + '\n');
  return path;
}

describe('Claude Agent SDK hooks on recorded Claude Code sessions agree with loopguard replay', () => {
  it('a session compacted mid-way: the files read again after the compact_boundary are allowed, through the hooks (PreCompact) as in replay', async () => {
    const sessionId = 'a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d';
    const path = compactedSession(sessionId, true);
    const hooks = await decisionsThroughHooks(path, sessionId);
    const replay = await decisionsThroughReplay(path);
    expect(hooks.runs.get(sessionId)).to.deep.equal(replay.get(sessionId));
    expect(replay.get(sessionId)!.decisions).to.deep.equal(['Read:allow', 'Read:allow', 'Grep:allow', 'Read:allow', 'Read:allow', 'Grep:allow']);
    // The same session without the compaction: the re-reads are refused, in both.
    const uncompacted = compactedSession(sessionId, false);
    const refused = await decisionsThroughReplay(uncompacted);
    expect(refused.get(sessionId)!.decisions.slice(3)).to.deep.equal(['Read:refuse repeat.run_wide', 'Read:refuse repeat.run_wide', 'Grep:refuse repeat.run_wide']);
    expect((await decisionsThroughHooks(uncompacted, sessionId)).runs.get(sessionId)).to.deep.equal(refused.get(sessionId));
  });

  it('the recorded fixture session (main thread, a Task subagent, an MCP tool, a failing build)', async () => {
    const sessionId = '0b4e8c52-7f1d-4a55-9d1e-3c2a1f6e9b10';
    const hooks = await decisionsThroughHooks(RECORDED_FIXTURE, sessionId);
    const replay = await decisionsThroughReplay(RECORDED_FIXTURE);
    expect([...hooks.runs.keys()].sort()).to.deep.equal([...replay.keys()].sort());
    expect(hooks.runs.get(sessionId)!.decisions).to.deep.equal(['Bash:allow', 'Read:allow', 'Task:allow', 'mcp__chrome-devtools__take_screenshot:allow']);
    for (const [run, expected] of replay) expect(hooks.runs.get(run), run).to.deep.equal(expected);
    expect(hooks.halted).to.deep.equal([]);
  });

  it('a looping session: the same refusals and the same stop, and the query ends once the model ignores the stop', async () => {
    const sessionId = 'c7d1f0a2-3b4e-4f5a-8b6c-7d8e9f0a1b2c';
    const path = loopingSession(sessionId);
    const hooks = await decisionsThroughHooks(path, sessionId);
    const replay = await decisionsThroughReplay(path);
    const expected = replay.get(sessionId)!;
    // The session is a loop by replay's own verdict: refusals, then a stop before its end.
    expect(expected.decisions.some((decision) => decision.startsWith('Read:refuse repeat.run_wide'))).to.equal(true);
    expect(expected.decisions.some((decision) => decision.startsWith('Bash:refuse repeat.run_wide'))).to.equal(true);
    expect(expected.stop).to.match(/^stale_rounds@\d+$/);
    expect(expected.decisions.at(-1)).to.match(/:skip$/);
    expect(hooks.runs.get(sessionId)).to.deep.equal(expected);
    // After the stop, the first call is denied with the stop message; the model called a tool
    // again in the next response, so that call also ended the query (continue: false).
    const skipped = expected.decisions.filter((decision) => decision.endsWith(':skip')).length;
    expect(skipped).to.be.greaterThanOrEqual(2);
    expect(hooks.halted).to.have.length(skipped - 1);
  });

  it('an honest fix-and-retest session: nothing denied, no stop, as in replay', async () => {
    const sessionId = 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b';
    const path = honestSession(sessionId);
    const hooks = await decisionsThroughHooks(path, sessionId);
    const replay = await decisionsThroughReplay(path);
    expect(hooks.runs.get(sessionId)).to.deep.equal(replay.get(sessionId));
    expect(hooks.runs.get(sessionId)!.decisions.every((decision) => decision.endsWith(':allow'))).to.equal(true);
    expect(hooks.runs.get(sessionId)!.stop).to.equal(undefined);
  });
});
