// `npm run demo -- claude-agent-sdk`: loopguard's Claude Agent SDK hooks, offline. Claude Code
// needs a model service, so the demo plays Claude Code's side: it fires the hook inputs a
// session fires (typed with the SDK's own types) at the hooks `query()` would be given — a
// coding agent that keeps listing and searching the same files, and one that edits and
// re-runs its tests — and prints what the model would read.
import type {
  HookInput,
  HookJSONOutput,
  PostToolBatchHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreToolUseHookInput,
} from '@anthropic-ai/claude-agent-sdk';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createLoopGuardHooks, type LoopGuardHooks } from '../../../src/integrations/claude-agent-sdk/index.js';

interface DemoCall {
  tool: string;
  input: Record<string, unknown>;
  /** What the tool returns (PostToolUse `tool_response`), or the error text (PostToolUseFailure). */
  response: unknown;
  failed?: boolean;
}

interface ResponseReport {
  denied: string[];
  endsQuery: boolean;
  context: string | undefined;
}

const base = { session_id: 'demo-session', transcript_path: '/tmp/demo-session.jsonl', cwd: '/work/app', permission_mode: 'default' };

async function fire(guarded: LoopGuardHooks, input: HookInput): Promise<HookJSONOutput> {
  const [matcher] = guarded.hooks[input.hook_event_name] ?? [];
  if (matcher === undefined) return {};
  return matcher.hooks[0]!(input, 'tool_use_id' in input ? input.tool_use_id : undefined, { signal: new AbortController().signal });
}

/** One model response as Claude Code runs it: PreToolUse, the tool, PostToolUse, then PostToolBatch. */
async function respond(guarded: LoopGuardHooks, id: number, calls: DemoCall[]): Promise<ResponseReport> {
  const report: ResponseReport = { denied: [], endsQuery: false, context: undefined };
  const batch: PostToolBatchHookInput = { ...base, hook_event_name: 'PostToolBatch', tool_calls: [] };
  for (const [index, call] of calls.entries()) {
    const toolUseId = `toolu_demo_${id}_${index}`;
    const pre: PreToolUseHookInput = { ...base, hook_event_name: 'PreToolUse', tool_name: call.tool, tool_input: call.input, tool_use_id: toolUseId };
    const output = await fire(guarded, pre);
    const specific = 'hookSpecificOutput' in output ? output.hookSpecificOutput : undefined;
    if ('continue' in output && output.continue === false) report.endsQuery = true;
    if (specific?.hookEventName === 'PreToolUse' && specific.permissionDecision === 'deny') {
      report.denied.push(specific.permissionDecisionReason ?? '');
      batch.tool_calls.push({ tool_name: call.tool, tool_input: call.input, tool_use_id: toolUseId });
      continue;
    }
    batch.tool_calls.push({ tool_name: call.tool, tool_input: call.input, tool_use_id: toolUseId, ...(call.failed ? {} : { tool_response: call.response }) });
    if (call.failed) {
      const failure: PostToolUseFailureHookInput = { ...base, hook_event_name: 'PostToolUseFailure', tool_name: call.tool, tool_input: call.input, tool_use_id: toolUseId, error: String(call.response) };
      await fire(guarded, failure);
    } else {
      const post: PostToolUseHookInput = { ...base, hook_event_name: 'PostToolUse', tool_name: call.tool, tool_input: call.input, tool_response: call.response, tool_use_id: toolUseId };
      await fire(guarded, post);
    }
  }
  const after = await fire(guarded, batch);
  const specific = 'hookSpecificOutput' in after ? after.hookSpecificOutput : undefined;
  if (specific?.hookEventName === 'PostToolBatch') report.context = specific.additionalContext;
  return report;
}

const bash = (command: string, stdout: string, description: string): DemoCall => ({ tool: 'Bash', input: { command, description }, response: { stdout, stderr: '', interrupted: false } });
const grep = (pattern: string, durationMs: number): DemoCall => ({
  tool: 'Grep',
  input: { pattern, output_mode: 'files_with_matches' },
  response: { mode: 'files_with_matches', filenames: ['src/parse.ts', 'test/parse.test.ts'], numFiles: 2, durationMs },
});

function describe(step: string, report: ResponseReport, previousContext: string | undefined, out: (line: string) => void): void {
  const said = report.denied.length > 0 ? `denied: "${report.denied[0]!.slice(0, 90)}…"` : 'ran';
  out(`  ${step.padEnd(38)} ${said}${report.endsQuery ? ' — query ended (continue: false)' : ''}`);
  if (report.context && report.context !== previousContext) out(`  ${''.padEnd(38)} the model is told: "${report.context.slice(0, 90)}…"`);
}

export async function runClaudeAgentSdkDemo(out: (line: string) => void): Promise<boolean> {
  const guard = new LoopGuard();

  out('Claude Agent SDK: a coding agent listing and searching the same files');
  const looping = createLoopGuardHooks({ guard, runId: 'claude-looping' });
  const steps: Array<[string, DemoCall[]]> = [
    ['Bash ls src test', [bash('ls src test', 'src:\nparse.ts\ntest:\nparse.test.ts', 'List source and test files')]],
    ['Grep parseDate', [grep('parseDate', 41)]],
    ['Grep parseDate\\(', [grep('parseDate\\(', 38)]],
    ['Bash ls src test (new description)', [bash('ls src test', 'src:\nparse.ts\ntest:\nparse.test.ts', 'Show the files again')]],
    ['Grep function parseDate', [grep('function parseDate', 35)]],
    ['Grep export function parseDate', [grep('export function parseDate', 33)]],
    ['Grep parseDate\\b', [grep('parseDate\\b', 31)]],
    ['Grep parseDate =', [grep('parseDate =', 30)]],
    ['Bash ls src test', [bash('ls src test', 'src:\nparse.ts\ntest:\nparse.test.ts', 'List files')]],
    ['Bash cat src/parse.ts', [bash('cat src/parse.ts', 'export function parseDate…', 'Show the parser')]],
    ['Bash cat src/parse.ts', [bash('cat src/parse.ts', 'export function parseDate…', 'Show the parser')]],
  ];
  let ended = false;
  let context: string | undefined;
  for (const [index, [step, calls]] of steps.entries()) {
    const report = await respond(looping, index, calls);
    describe(step, report, context, out);
    context = report.context;
    if (report.endsQuery) {
      ended = true;
      break;
    }
  }
  const loopOutcome = looping.end();
  out(`  → stopped: ${loopOutcome.stopReason ?? 'no'}; ${loopOutcome.refusals.length} calls denied; query ended: ${ended ? 'yes' : 'no'}`);

  out('Claude Agent SDK: an agent that edits and re-runs its tests');
  const honest = createLoopGuardHooks({ guard, runId: 'claude-honest' });
  const failing = 'Exit code 1\nFAIL test/parse.test.ts: expected 2026-03-01, got Invalid Date';
  const honestSteps: Array<[string, DemoCall[]]> = [
    ['Bash npm test (fails)', [{ tool: 'Bash', input: { command: 'npm test', description: 'Run the tests' }, response: failing, failed: true }]],
    ['Edit src/parse.ts', [{ tool: 'Edit', input: { file_path: 'src/parse.ts', old_string: 'new Date(text)', new_string: 'parseIsoDate(text)' }, response: { filePath: 'src/parse.ts' } }]],
    ['Bash npm test (passes)', [bash('npm test', 'PASS test/parse.test.ts', 'Run the tests')]],
    ['Bash git diff', [bash('git diff', '- new Date(text)\n+ parseIsoDate(text)', 'Show the change')]],
  ];
  let honestDenied = 0;
  for (const [index, [step, calls]] of honestSteps.entries()) {
    const report = await respond(honest, index, calls);
    honestDenied += report.denied.length;
    describe(step, report, undefined, out);
  }
  const honestOutcome = honest.end();
  out(`  → stopped: ${honestOutcome.stopReason ?? 'no'}; ${honestOutcome.refusals.length} calls denied`);

  return loopOutcome.stopReason !== undefined && ended && loopOutcome.refusals.length > 0 && honestOutcome.stopReason === undefined && honestDenied === 0;
}
