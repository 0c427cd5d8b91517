// createLoopGuardHooks driven the way Claude Code drives hooks: hook inputs typed with the SDK's
// own types (so tsc checks their shape against @anthropic-ai/claude-agent-sdk), passed to the
// callbacks through the matcher lists an `Options.hooks` holds. Scripted loops must be denied
// and stopped; honest work must be left alone.
import { expect } from 'chai';
import type {
  HookInput,
  HookJSONOutput,
  Options,
  PostToolBatchHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreCompactHookInput,
  PreToolUseHookInput,
  SubagentStopHookInput,
} from '@anthropic-ai/claude-agent-sdk';

import { LoopGuardConfigError } from '../../../src/core/errors.js';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { createLoopGuardHooks, toolResponseOutcome, type LoopGuardHooks } from '../../../src/integrations/claude-agent-sdk/index.js';
import { useDiagCapture } from '../../otel/otel-test-helpers.js';
import { fireHooks } from './claude-code-session-hook-inputs.js';

const SESSION = '5f0c2b1a-9d8e-4c7b-a6f5-e4d3c2b1a090';
const base = (agentId?: string) => ({
  session_id: SESSION,
  transcript_path: `/home/user/.claude/projects/-work-app/${SESSION}.jsonl`,
  cwd: '/work/app',
  permission_mode: 'bypassPermissions',
  ...(agentId !== undefined ? { agent_id: agentId, agent_type: 'Explore' } : {}),
});

interface Call {
  tool: string;
  input: Record<string, unknown>;
  /** `tool_response` for PostToolUse; an Error for PostToolUseFailure; undefined: no Post hook at all. */
  response?: unknown;
}

interface CallResult {
  id: string;
  /** The PreToolUse output. */
  pre: HookJSONOutput;
  denied: boolean;
  reason: string | undefined;
  endsQuery: boolean;
}

/**
 * One model response as Claude Code runs it: PreToolUse for every call (in parallel, the way
 * Claude Code starts concurrency-safe tools), then PostToolUse / PostToolUseFailure for the
 * calls that ran, then one PostToolBatch.
 */
class ClaudeCodeSession {
  private nextId = 0;
  readonly contexts: string[] = [];

  constructor(
    private readonly guarded: LoopGuardHooks,
    private readonly agentId?: string,
  ) {}

  async response(...calls: Call[]): Promise<CallResult[]> {
    const ids = calls.map(() => `toolu_01${String(++this.nextId).padStart(22, '0')}${this.agentId ?? ''}`);
    const pres = await Promise.all(
      calls.map((call, index) => {
        const input: PreToolUseHookInput = { ...base(this.agentId), hook_event_name: 'PreToolUse', tool_name: call.tool, tool_input: call.input, tool_use_id: ids[index]! };
        return this.fire(input);
      }),
    );
    const results: CallResult[] = [];
    const batch: PostToolBatchHookInput = { ...base(this.agentId), hook_event_name: 'PostToolBatch', tool_calls: [] };
    for (const [index, call] of calls.entries()) {
      const pre = pres[index]!;
      const specific = 'hookSpecificOutput' in pre ? pre.hookSpecificOutput : undefined;
      const denied = specific?.hookEventName === 'PreToolUse' && specific.permissionDecision === 'deny';
      const id = ids[index]!;
      results.push({
        id,
        pre,
        denied,
        reason: denied && specific?.hookEventName === 'PreToolUse' ? specific.permissionDecisionReason : undefined,
        endsQuery: 'continue' in pre && pre.continue === false,
      });
      batch.tool_calls.push({ tool_name: call.tool, tool_input: call.input, tool_use_id: id, ...(denied || call.response instanceof Error ? {} : { tool_response: call.response }) });
      if (denied || !('response' in call)) continue;
      if (call.response instanceof Error) {
        const failure: PostToolUseFailureHookInput = { ...base(this.agentId), hook_event_name: 'PostToolUseFailure', tool_name: call.tool, tool_input: call.input, tool_use_id: id, error: call.response.message };
        await this.fire(failure);
      } else {
        const post: PostToolUseHookInput = { ...base(this.agentId), hook_event_name: 'PostToolUse', tool_name: call.tool, tool_input: call.input, tool_response: call.response, tool_use_id: id, duration_ms: 12 };
        await this.fire(post);
      }
    }
    const after = await this.fire(batch);
    const specific = 'hookSpecificOutput' in after ? after.hookSpecificOutput : undefined;
    if (specific?.hookEventName === 'PostToolBatch' && specific.additionalContext !== undefined) this.contexts.push(specific.additionalContext);
    else this.contexts.push('');
    return results;
  }

  private async fire(input: HookInput): Promise<HookJSONOutput> {
    const outputs = await fireHooks(this.guarded.hooks, input);
    expect(outputs).to.have.length(1);
    return outputs[0]!;
  }
}

const bash = (command: string, stdout: string, description = 'List files'): Call => ({
  tool: 'Bash',
  input: { command, description },
  response: { stdout, stderr: '', interrupted: false, isImage: false },
});

describe('createLoopGuardHooks (Claude Agent SDK hooks)', () => {
  const diagnostics = useDiagCapture();
  const warnings = (): string[] => diagnostics.matching(/^loopguard/, 'warn').map((message) => message.text);

  it('is what Options.hooks takes, one matcher per event it needs, none restricted to a tool', () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard() });
    const options: Options = { hooks: guarded.hooks, permissionMode: 'default' };
    expect(Object.keys(options.hooks!).sort()).to.deep.equal(['PostToolBatch', 'PostToolUse', 'PostToolUseFailure', 'PreCompact', 'PreToolUse', 'Stop', 'SubagentStop', 'UserPromptSubmit']);
    for (const matchers of Object.values(guarded.hooks)) {
      expect(matchers).to.have.length(1);
      expect(matchers[0]!.matcher).to.equal(undefined);
    }
    guarded.end();
  });

  it('Bash `ls` repeated with nothing changed: denied, then stopped, then the query ends when the model insists', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard(), runId: SESSION });
    const session = new ClaudeCodeSession(guarded);
    const listing = 'package.json\nsrc\ntest';

    const [first] = await session.response(bash('ls', listing));
    expect(first!.denied).to.equal(false);
    expect(first!.pre, 'an allowed call gets no opinion: permissions still decide').to.deep.equal({});

    const [second] = await session.response(bash('ls', listing, 'Show the files again'));
    expect(second!.denied, 'the description is a label: the same command is the same call').to.equal(true);
    expect(second!.reason).to.match(/^Not run: Bash was already called with these same arguments in this run \(call toolu_01\d+1, round 1\)/);
    expect(second!.endsQuery).to.equal(false);

    await session.response(bash('ls', listing));
    await session.response(bash('ls', listing));
    // Three rounds in a row in which nothing could run: the general profile stops the run.
    expect(guarded.run.stopped?.reason).to.equal('refused_rounds');
    expect(session.contexts.at(-1)).to.match(/^Tool use has ended for this run/);

    const [afterStop] = await session.response(bash('cat package.json', '{"name":"app"}'));
    expect(afterStop!.denied).to.equal(true);
    expect(afterStop!.reason).to.match(/^Not run: tool use has ended for this run \(every call in the last 3 rounds was refused\)/);
    expect(afterStop!.endsQuery, 'the model is told once before the query ends').to.equal(false);

    const [ignored] = await session.response(bash('pwd', '/work/app'));
    expect(ignored!.denied).to.equal(true);
    expect(ignored!.endsQuery).to.equal(true);
    expect(ignored!.pre).to.include({ continue: false });
    expect((ignored!.pre as { stopReason?: string }).stopReason).to.match(/^loopguard stopped the run \(refused_rounds\): /);

    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('refused_rounds');
    expect(outcome.refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide', 'repeat.run_wide', 'repeat.run_wide', 'run.stopped', 'run.stopped']);
    expect(outcome.partial.executed).to.equal(1);
  });

  it('with endQueryWhenStopIgnored: false a stopped run only ever denies', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard(), endQueryWhenStopIgnored: false });
    const session = new ClaudeCodeSession(guarded);
    for (let round = 0; round < 4; round++) await session.response(bash('ls', 'src'));
    expect(guarded.run.stopped?.reason).to.equal('refused_rounds');
    for (let round = 0; round < 3; round++) {
      const [call] = await session.response(bash('pwd', '/work/app'));
      expect(call!.denied).to.equal(true);
      expect(call!.endsQuery).to.equal(false);
    }
    guarded.end();
  });

  it('Edit, then the tests again: every call runs, nothing is said to the model', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard() });
    const session = new ClaudeCodeSession(guarded);
    const failing = new Error('Exit code 1\nFAIL test/parse.test.ts\n  expected 2026-03-01, got Invalid Date');
    const edit = (from: string, to: string): Call => ({
      tool: 'Edit',
      input: { file_path: '/work/app/src/parse.ts', old_string: from, new_string: to },
      response: { filePath: '/work/app/src/parse.ts', oldString: from, newString: to, structuredPatch: [] },
    });
    const results = [
      ...(await session.response({ tool: 'Bash', input: { command: 'npm test', description: 'Run the tests' }, response: failing })),
      ...(await session.response({ tool: 'Read', input: { file_path: '/work/app/src/parse.ts' }, response: { type: 'text', file: { filePath: '/work/app/src/parse.ts', content: 'return new Date(text);' } } })),
      ...(await session.response(edit('new Date(text)', 'new Date(`${text}Z`)'))),
      ...(await session.response({ tool: 'Bash', input: { command: 'npm test', description: 'Run the tests' }, response: failing })),
      ...(await session.response(edit('new Date(`${text}Z`)', 'parseIsoDate(text)'))),
      ...(await session.response({ tool: 'Bash', input: { command: 'npm test', description: 'Run the tests' }, response: { stdout: 'PASS test/parse.test.ts', stderr: '', interrupted: false } })),
      ...(await session.response({ tool: 'Read', input: { file_path: '/work/app/src/parse.ts' }, response: { type: 'text', file: { filePath: '/work/app/src/parse.ts', content: 'return parseIsoDate(text);' } } })),
    ];
    expect(results.map((result) => result.denied)).to.deep.equal([false, false, false, false, false, false, false]);
    expect(session.contexts.every((context) => context === '')).to.equal(true);
    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal(undefined);
    expect(outcome.refusals).to.deep.equal([]);
    expect(outcome.partial.rounds).to.equal(7);
  });

  it('reworded Greps finding the same files: nudged through additionalContext, Grep switched off, then stopped', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard() });
    const session = new ClaudeCodeSession(guarded);
    const files = ['src/parse.ts', 'test/parse.test.ts'];
    const grep = (pattern: string, durationMs: number): Call => ({
      tool: 'Grep',
      input: { pattern, output_mode: 'files_with_matches' },
      response: { mode: 'files_with_matches', filenames: files, numFiles: 2, durationMs },
    });
    const patterns = ['parseDate', 'parseDate\\(', 'function parseDate', 'parseDate\\b', 'export function parseDate', 'parseDate\\(text', 'parseDate =', 'def parseDate'];
    const readme: Call = { tool: 'Read', input: { file_path: '/work/app/README.md' }, response: { type: 'text', file: { filePath: '/work/app/README.md', content: '# app' } } };
    const denied: Array<string | undefined> = [];
    for (const [index, pattern] of patterns.entries()) {
      const calls = index === 0 ? [readme, grep(pattern, 30)] : [grep(pattern, 30 + index)];
      const results = await session.response(...calls);
      const call = results.at(-1)!;
      denied.push(call.denied ? call.reason!.slice(0, 30) : undefined);
      if (guarded.run.stopped) break;
    }
    // Round 1 is new; every later round is stale (Grep's durationMs is volatile, so its answers repeat).
    expect(session.contexts[0]).to.equal('');
    expect(session.contexts[1]).to.match(/^Note: in the last round, Grep returned only results you have already seen/);
    expect(session.contexts[2]).to.match(/^Note: in the last 2 rounds, Grep returned only results you have already seen/);
    // After three stale rounds Grep is switched off (Claude Code cannot hide a tool: calls are denied).
    expect(denied.slice(0, 4)).to.deep.equal([undefined, undefined, undefined, undefined]);
    expect(denied[4]).to.equal('Not run: Grep is switched off ');
    expect(guarded.run.stopped?.reason).to.equal('stale_rounds');
    expect(session.contexts.at(-1)).to.match(/^Tool use has ended for this run/);
    guarded.end();
  });

  it('two identical calls in one response: the second is denied as in flight, and both are one round', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard() });
    const session = new ClaudeCodeSession(guarded);
    const readCall: Call = { tool: 'Read', input: { file_path: '/work/app/README.md' }, response: { type: 'text', file: { filePath: '/work/app/README.md', content: '# app' } } };
    const [first, second, other] = await session.response(readCall, readCall, { tool: 'Glob', input: { pattern: '**/*.ts' }, response: { filenames: ['src/a.ts'], numFiles: 1, durationMs: 4, truncated: false } });
    expect([first!.denied, second!.denied, other!.denied]).to.deep.equal([false, true, false]);
    expect(second!.reason).to.match(/already running/);
    expect(guarded.run.round).to.equal(1);
    expect(guarded.end().partial.rounds).to.equal(1);
  });

  it('a call that never reaches PostToolUse (denied by another hook or a permission rule) is settled at PostToolBatch', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard() });
    const session = new ClaudeCodeSession(guarded);
    await session.response({ tool: 'Bash', input: { command: 'rm -rf build', description: 'Clean' } });
    expect(guarded.run.inFlight).to.equal(0);
    expect(guarded.end().partial.tools.Bash!.failures).to.equal(1);
  });

  it('a subagent is a run of its own: the main thread\'s results are not in its conversation', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard(), runId: SESSION });
    const main = new ClaudeCodeSession(guarded);
    const explorer = new ClaudeCodeSession(guarded, 'a1b2c3d4');
    const readme: Call = { tool: 'Read', input: { file_path: '/work/app/README.md' }, response: { type: 'text', file: { filePath: '/work/app/README.md', content: '# app' } } };
    expect((await main.response(readme))[0]!.denied).to.equal(false);
    expect((await explorer.response(readme))[0]!.denied, 'new to the subagent').to.equal(false);
    expect((await explorer.response(readme))[0]!.denied, 'a repeat within the subagent').to.equal(true);
    const during = guarded.outcome();
    expect(during.refusals).to.deep.equal([]);
    expect(during.subagents.a1b2c3d4!.refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide']);

    const stop: SubagentStopHookInput = {
      ...base('a1b2c3d4'),
      hook_event_name: 'SubagentStop',
      stop_hook_active: false,
      agent_id: 'a1b2c3d4',
      agent_transcript_path: '/home/user/.claude/projects/-work-app/subagents/agent-a1b2c3d4.jsonl',
      agent_type: 'Explore',
    };
    await fireHooks(guarded.hooks, stop);
    const guard = guarded.run;
    expect(guard.isEnded).to.equal(false);
    const outcome = guarded.end();
    expect(outcome.subagents.a1b2c3d4!.partial.executed).to.equal(1);
  });

  it('after Claude Code compacts the conversation (PreCompact), the files read before are read again; without it they are denied', async () => {
    const readme: Call = { tool: 'Read', input: { file_path: '/work/app/README.md' }, response: { type: 'text', file: { filePath: '/work/app/README.md', content: '# app' } } };
    const compactThenRead = async (compact: boolean): Promise<boolean> => {
      const guarded = createLoopGuardHooks({ guard: new LoopGuard(), runId: SESSION });
      const session = new ClaudeCodeSession(guarded);
      expect((await session.response(readme))[0]!.denied).to.equal(false);
      if (compact) {
        const outputs = await fireHooks(guarded.hooks, { ...base(undefined), hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: null } satisfies PreCompactHookInput);
        expect(outputs).to.deep.equal([{}]);
      }
      const [again] = await session.response(readme);
      guarded.end();
      return again!.denied;
    };
    expect(await compactThenRead(false), 'the result is still in the conversation').to.equal(true);
    expect(await compactThenRead(true), 'the model no longer has it').to.equal(false);
  });

  it('WebSearch answers are compared without their per-call stamps', () => {
    const guard = new LoopGuard();
    const hits = [{ title: 'Date parsing', url: 'https://example.com/dates', snippet: 'ISO 8601' }];
    const answer = (toolUseId: string, seconds: number) => ({ query: 'js parse iso date', results: [{ tool_use_id: toolUseId, content: hits }, 'Found one page.'], durationSeconds: seconds });
    const first = guard.fingerprint('WebSearch', toolResponseOutcome('WebSearch', answer('srvtoolu_01', 1.2)));
    const second = guard.fingerprint('WebSearch', toolResponseOutcome('WebSearch', answer('srvtoolu_02', 2.9)));
    expect(first.resultHash).to.be.a('string');
    expect(second.resultHash).to.equal(first.resultHash);
    const raw = guard.fingerprint('WebSearch', { result: answer('srvtoolu_02', 2.9) });
    expect(raw.resultHash, 'unnormalized, they would never repeat').to.not.equal(first.resultHash);
  });

  it('fails open: a guard that throws lets every call through, and diag says so', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard() });
    const session = new ClaudeCodeSession(guarded);
    const run = guarded.run;
    run.claimCall = async () => {
      throw new Error('ledger corrupted');
    };
    run.shouldStop = () => {
      throw new Error('ledger corrupted');
    };
    const results = [...(await session.response(bash('ls', 'src'))), ...(await session.response(bash('ls', 'src')))];
    expect(results.map((result) => result.pre)).to.deep.equal([{}, {}]);
    expect(session.contexts).to.deep.equal(['', '']);
    expect(warnings()).to.include('loopguard: claimCall(Bash) failed; continuing without the guard for this step Error: ledger corrupted');
    expect(warnings()).to.include('loopguard: PostToolBatch failed; continuing without the guard for this step Error: ledger corrupted');
  });

  it('fails open when recording an outcome throws', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard() });
    const session = new ClaudeCodeSession(guarded);
    guarded.run.finishCall = () => {
      throw new Error('fingerprint failed');
    };
    const [call] = await session.response(bash('ls', 'src'));
    expect(call!.pre).to.deep.equal({});
    expect(warnings()).to.include('loopguard: finishCall(Bash) failed; continuing without the guard for this step Error: fingerprint failed');
  });

  it('hooks used after end(): every call is denied, the query is not ended, and diag warns once', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard(), runId: 'query-1' });
    const session = new ClaudeCodeSession(guarded);
    await session.response(bash('ls', 'src'));
    guarded.end();
    expect(warnings()).to.deep.equal([]);
    const [again] = await session.response(bash('git status', 'clean'));
    const [more] = await session.response(bash('git log', 'one commit'));
    expect(again!.denied).to.equal(true);
    expect(again!.reason).to.match(/^Not run: tool use has ended for this run/);
    expect(more!.endsQuery).to.equal(false);
    expect(warnings()).to.have.length(1);
    expect(warnings()[0]).to.match(/^loopguard: the hooks of run "query-1" were used after end\(\)\. That run is over, so every tool call is denied/);
    expect(warnings()[0]).to.include('call it for each query()');
  });

  it('rejects a missing guard and a bad runId with LoopGuardConfigError naming the field', () => {
    expect(() => createLoopGuardHooks({} as never)).to.throw(LoopGuardConfigError, /^guard: must be a LoopGuard/);
    expect(() => createLoopGuardHooks({ guard: new LoopGuard(), runId: '' })).to.throw(LoopGuardConfigError, /^runId: /);
    expect(() => createLoopGuardHooks({ guard: new LoopGuard(), endQueryWhenStopIgnored: 'yes' as never })).to.throw(LoopGuardConfigError, /^endQueryWhenStopIgnored: /);
  });
});

// Esc while a tool runs: Claude Code reports PostToolUseFailure with is_interrupt, recorded as
// `interrupted` (not the tool's failure to repeat). For a business-key write that read as a
// failure that proves nothing was done, and freed the key: the next session sent the email again.
describe('createLoopGuardHooks: a business-key write the user interrupted', () => {
  it('keeps its key: the next session is denied, as the write may have happened', async () => {
    const guard = new LoopGuard({ store: createMemoryRunStore(), idempotentWrites: { mcp__mail__send_email: { key: ['to'] } }, logger: { warn: () => undefined } });
    const tool_input = { to: 'ops@example.com' };
    const pre = (id: string): PreToolUseHookInput => ({ ...base(), hook_event_name: 'PreToolUse', tool_name: 'mcp__mail__send_email', tool_input, tool_use_id: id });
    const first = createLoopGuardHooks({ guard });
    expect(await fireHooks(first.hooks, pre('toolu_1'))).to.deep.equal([{}]);
    const interrupted: PostToolUseFailureHookInput = { ...base(), hook_event_name: 'PostToolUseFailure', tool_name: 'mcp__mail__send_email', tool_input, tool_use_id: 'toolu_1', error: 'Interrupted by user', is_interrupt: true };
    await fireHooks(first.hooks, interrupted);
    first.end();
    await guard.flush();
    const second = createLoopGuardHooks({ guard });
    const [decision] = (await fireHooks(second.hooks, pre('toolu_2'))) as [HookJSONOutput];
    const specific = 'hookSpecificOutput' in decision ? decision.hookSpecificOutput : undefined;
    expect(specific?.hookEventName === 'PreToolUse' ? specific.permissionDecision : 'allowed').to.equal('deny');
    expect(specific?.hookEventName === 'PreToolUse' ? specific.permissionDecisionReason : '').to.match(/^Not run: the same mcp__mail__send_email \(same business key\) is being done right now/);
  });
});
