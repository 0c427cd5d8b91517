// Runs one scenario twice through the real AI SDK loop (generateText): once as is, once with
// loopguard, and returns what each run cost and what loopguard did.
import { generateText, stepCountIs, type ToolSet } from 'ai';

import { randomUUID } from 'node:crypto';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { RunStore } from '../../src/core/shared-ledger/run-store.js';
import type { CallDecision, LoopGuardListener, OutcomeClass, RoundSummary } from '../../src/core/types.js';
import { createGuardedAgentSettings } from '../../src/integrations/ai-sdk/index.js';
import type { LoopGuardOutcome } from '../../src/integrations/get-loop-guard-outcome.js';
import { createDemoTools } from './demo-tools.js';
import type { Scenario } from './scenarios.js';
import { scriptedAgentModel } from './scripted-agent-model.js';
import { VirtualClock } from './virtual-clock.js';

/** The cost of one run, in the agent's (virtual) time. */
export interface RunCost {
  modelCalls: number;
  toolCalls: number;
  tokens: number;
  elapsedMs: number;
  answer: string;
}

/** One closed round, as the progress line shows it. */
export interface RoundLine {
  summary: RoundSummary;
  tools: string[];
  refusals: string[];
  /** When every call that ran in the round failed: how each failed (error, overloaded, timeout). */
  failures: string[];
  /** What loopguard did before the next model call: nudge, disable tools, end tool use. */
  next: { nudge: boolean; disabled: string[]; stop: boolean };
}

export interface ScenarioResult {
  scenario: Scenario;
  unguarded: RunCost;
  guarded: RunCost;
  outcome: LoopGuardOutcome;
  rounds: RoundLine[];
}

const FAILURES = new Set<OutcomeClass>(['error', 'overloaded', 'timeout']);

/** Step ceiling of both runs: the backstop everyone already has. */
const MAX_STEPS = 40;

export interface RunScenarioOptions {
  /** Called as each guarded round closes, while the run goes on (main.ts prints them afterwards, from `rounds`). */
  onRound?: (line: RoundLine) => void;
  /** Extra engine listeners (telemetry). */
  listeners?: LoopGuardListener[];
  /** Turn on the AI SDK's own spans (when an OTLP endpoint is set). */
  telemetry?: boolean;
  /** Called with the scenario's engine before the guarded run (telemetry subscribes here). */
  onGuard?: (guard: LoopGuard) => void;
  /** A shared store (LOOPGUARD_REDIS_URL): the guarded runs are kept there, for `loopguard runs`. */
  store?: RunStore;
}

export async function runScenario(scenario: Scenario, options: RunScenarioOptions = {}): Promise<ScenarioResult> {
  const unguarded = await runUnguarded(scenario, options.telemetry ?? false);

  const clock = new VirtualClock();
  const { tools, executions } = pickTools(scenario, clock);
  const rounds: RoundLine[] = [];
  const toolsByRound = new Map<number, { tools: string[]; refusals: string[]; outcomes: OutcomeClass[] }>();
  const roundEntry = (round: number) => {
    const entry = toolsByRound.get(round) ?? { tools: [], refusals: [], outcomes: [] };
    toolsByRound.set(round, entry);
    return entry;
  };
  let pending: RoundSummary | undefined;
  const flush = (next: RoundLine['next']) => {
    if (pending === undefined) return;
    const calls = roundEntry(pending.round);
    const allFailed = calls.outcomes.length > 0 && calls.outcomes.every((outcome) => FAILURES.has(outcome));
    const line: RoundLine = { summary: pending, tools: calls.tools, refusals: calls.refusals, failures: allFailed ? calls.outcomes : [], next };
    pending = undefined;
    rounds.push(line);
    options.onRound?.(line);
  };
  const progress: LoopGuardListener = {
    callDecided: (_run, call, decision: CallDecision, round) => {
      const entry = roundEntry(round);
      entry.tools.push(call.tool);
      if (decision.action === 'refuse') entry.refusals.push(decision.reason);
    },
    callFinished: (_run, _call, outcome, _novelty, round) => {
      roundEntry(round).outcomes.push(outcome);
    },
    roundClosed: (_run, summary) => {
      pending = summary;
    },
  };
  const guard = new LoopGuard({ ...scenario.policy, now: clock.now, listeners: [progress, ...(options.listeners ?? [])], ...(options.store ? { store: options.store } : {}) });
  options.onGuard?.(guard);
  // In a shared store a run id is one run until it expires: each demo run gets its own.
  const runId = options.store === undefined ? `demo-${scenario.id}` : `demo-${scenario.id}-${randomUUID().slice(0, 8)}`;
  const guarded = createGuardedAgentSettings({ guard, tools, runId });
  const model = scriptedAgentModel(scenario.script, clock);

  const result = await generateText({
    model,
    prompt: scenario.prompt,
    ...guarded,
    // Wraps loopguard's prepareStep only to print what it decided for the coming step.
    prepareStep: async (step) => {
      const prepared = await guarded.prepareStep(step);
      if (step.stepNumber > 0) {
        const offered = prepared?.activeTools?.map(String) ?? Object.keys(tools);
        const stop = prepared?.toolChoice === 'none';
        flush({
          nudge: prepared?.messages !== undefined && !stop,
          disabled: stop ? [] : Object.keys(tools).filter((name) => !offered.includes(name)),
          stop,
        });
      }
      return prepared;
    },
    stopWhen: [guarded.stopWhen, stepCountIs(MAX_STEPS)],
    experimental_telemetry: telemetrySettings(options.telemetry ?? false, scenario.id, `demo-${scenario.id}`),
  });
  const outcome = guarded.end();
  flush({ nudge: false, disabled: [], stop: false });
  await guard.flush();

  return {
    scenario,
    unguarded,
    guarded: {
      modelCalls: result.steps.length,
      toolCalls: executions.length,
      tokens: (result.totalUsage.inputTokens ?? 0) + (result.totalUsage.outputTokens ?? 0),
      elapsedMs: clock.elapsedMs(),
      answer: result.text,
    },
    outcome,
    rounds,
  };
}

async function runUnguarded(scenario: Scenario, telemetry: boolean): Promise<RunCost> {
  const clock = new VirtualClock();
  const { tools, executions } = pickTools(scenario, clock);
  const result = await generateText({
    model: scriptedAgentModel(scenario.script, clock),
    prompt: scenario.prompt,
    tools,
    stopWhen: stepCountIs(MAX_STEPS),
    experimental_telemetry: { isEnabled: telemetry, functionId: `${scenario.id} (unguarded)` },
  });
  return {
    modelCalls: result.steps.length,
    toolCalls: executions.length,
    tokens: (result.totalUsage.inputTokens ?? 0) + (result.totalUsage.outputTokens ?? 0),
    elapsedMs: clock.elapsedMs(),
    answer: result.text,
  };
}

function pickTools(scenario: Scenario, clock: VirtualClock): { tools: ToolSet; executions: string[] } {
  const all = createDemoTools(clock, scenario.billing ?? { failuresBeforeRecovery: 0, failureMessage: '' });
  const tools: ToolSet = {};
  for (const name of scenario.tools) tools[name] = all.tools[name];
  return { tools, executions: all.executions };
}

/**
 * The AI SDK's telemetry settings with a run id on both majors: AI SDK 6 records
 * `metadata.runId`; AI SDK 7 has no telemetry metadata (the run id is runtime context there)
 * and ignores it. Not written inline: AI SDK 7's types reject `metadata` in a literal.
 */
function telemetrySettings(isEnabled: boolean, functionId: string, runId: string): { isEnabled: boolean; functionId: string } {
  const settings = { isEnabled, functionId, metadata: { runId } };
  return settings;
}
