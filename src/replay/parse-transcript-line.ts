import type { ModelUsage, ToolErrorInfo } from '../core/types.js';
import type { ReplayCall, ReplayModelRound } from './replay-call.js';
import { ReplayInputError } from './replay-input-error.js';

/**
 * Validates one JSONL transcript line and turns it into a ReplayCall, or a ReplayModelRound for
 * a line with `run` and `round` and none of `tool`, `result`, `error` (a model call that asked
 * for no tools). Every complaint names the field, because the person fixing a 1 GB export needs
 * to know which of a dozen fields their exporter got wrong, not just that line 48 213 is bad.
 * Unknown fields are ignored so exporters can carry extra context without breaking replay.
 */
export function parseTranscriptLine(text: string, file: string, line: number): ReplayCall | ReplayModelRound {
  const fail = (problem: string, field?: string): never => {
    throw new ReplayInputError({ file, line, problem, field });
  };

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    fail(`not valid JSON (${(error as Error).message})`);
  }
  if (!isPlainObject(value)) {
    fail(`expected a JSON object with "run", "round", "tool" and "result" or "error", got ${describeJsonType(value)}`);
  }
  const record = value as Record<string, unknown>;

  const run = record.run;
  if (typeof run !== 'string' || run.length === 0) {
    fail(`"run" must be a non-empty string, got ${describeJsonValue(run)}`, 'run');
  }
  const round = record.round;
  if (typeof round !== 'number' || !Number.isInteger(round) || round < 1) {
    fail(`"round" must be an integer >= 1, got ${describeJsonValue(round)}`, 'round');
  }
  const hasResult = Object.prototype.hasOwnProperty.call(record, 'result');
  const hasError = Object.prototype.hasOwnProperty.call(record, 'error') && record.error !== null;
  const tool = record.tool;
  if (tool === undefined && !hasResult && !hasError) {
    const modelRound: { -readonly [K in keyof ReplayModelRound]: ReplayModelRound[K] } = { kind: 'model-round', source: { file, line }, run: run as string, round: round as number };
    if (record.usage !== undefined && record.usage !== null) modelRound.usage = parseUsageField(record.usage, fail);
    if (record.ts !== undefined && record.ts !== null) modelRound.startTime = nonNegativeNumber(record.ts, 'ts', 'epoch milliseconds at the model call', fail);
    return modelRound;
  }
  if (typeof tool !== 'string' || tool.length === 0) {
    fail(`"tool" must be a non-empty string, got ${describeJsonValue(tool)}`, 'tool');
  }

  let args: unknown = record.args;
  if (args === undefined || args === null) {
    args = {};
  } else if (typeof args === 'string') {
    try {
      JSON.parse(args);
    } catch (error) {
      fail(`"args" is a string but not valid JSON (${(error as Error).message})`, 'args');
    }
  } else if (!isPlainObject(args)) {
    fail(`"args" must be an object or a string holding JSON, got ${describeJsonType(args)}`, 'args');
  }

  if (hasResult && hasError) fail('has both "result" and "error"; a call has exactly one of them', 'result');
  if (!hasResult && !hasError) fail('needs exactly one of "result" (any JSON) or "error" ({"type"?, "message"?})', 'result');

  let outcome: ReplayCall['outcome'];
  if (hasResult) {
    outcome = { result: record.result };
  } else {
    outcome = { error: parseErrorField(record.error, fail) };
  }

  const call: ReplayCall = {
    source: { file, line },
    run: run as string,
    round: round as number,
    tool: tool as string,
    args,
    outcome,
  };

  if (record.callId !== undefined && record.callId !== null) {
    if (typeof record.callId !== 'string') fail(`"callId" must be a string, got ${describeJsonValue(record.callId)}`, 'callId');
    call.callId = record.callId as string;
  }
  if (record.ts !== undefined && record.ts !== null) {
    call.startTime = nonNegativeNumber(record.ts, 'ts', 'epoch milliseconds at call start', fail);
  }
  if (record.durationMs !== undefined && record.durationMs !== null) {
    call.durationMs = nonNegativeNumber(record.durationMs, 'durationMs', 'milliseconds', fail);
  }
  if (record.usage !== undefined && record.usage !== null) {
    call.usage = parseUsageField(record.usage, fail);
  }
  if (record.compactedBefore !== undefined && record.compactedBefore !== null) {
    if (typeof record.compactedBefore !== 'boolean') fail(`"compactedBefore" must be true or false, got ${describeJsonValue(record.compactedBefore)}`, 'compactedBefore');
    if (record.compactedBefore === true) call.compactedBefore = true;
  }
  return call;
}

type Fail = (problem: string, field?: string) => never;

function parseErrorField(value: unknown, fail: Fail): ToolErrorInfo {
  if (!isPlainObject(value)) {
    fail(`"error" must be an object like {"type": "timeout", "message": "..."}, got ${describeJsonType(value)}`, 'error');
  }
  const record = value as Record<string, unknown>;
  const info: ToolErrorInfo = {};
  if (record.type !== undefined && record.type !== null) {
    if (typeof record.type !== 'string') fail(`"error.type" must be a string, got ${describeJsonValue(record.type)}`, 'error.type');
    info.type = record.type as string;
  }
  if (record.message !== undefined && record.message !== null) {
    if (typeof record.message !== 'string') {
      fail(`"error.message" must be a string, got ${describeJsonValue(record.message)}`, 'error.message');
    }
    info.message = record.message as string;
  }
  return info;
}

function parseUsageField(value: unknown, fail: Fail): ModelUsage {
  if (!isPlainObject(value)) {
    fail(`"usage" must be an object like {"inputTokens": 1200, "outputTokens": 80}, got ${describeJsonType(value)}`, 'usage');
  }
  const record = value as Record<string, unknown>;
  const usage: ModelUsage = {};
  for (const key of ['inputTokens', 'outputTokens'] as const) {
    const tokens = record[key];
    if (tokens === undefined || tokens === null) continue;
    if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0) {
      fail(`"usage.${key}" must be a non-negative integer, got ${describeJsonValue(tokens)}`, `usage.${key}`);
    }
    usage[key] = tokens as number;
  }
  return usage;
}

function nonNegativeNumber(value: unknown, field: string, meaning: string, fail: Fail): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(`"${field}" must be a non-negative number (${meaning}), got ${describeJsonValue(value)}`, field);
  }
  return value as number;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** Short rendering of a bad value: enough to recognise it, never a megabyte of JSON. */
export function describeJsonValue(value: unknown): string {
  if (value === undefined) return 'nothing (field missing)';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
