// `loopguard/telemetry`: loopguard's metrics and stop/refusal events, and the one-call SDK
// setup. Needs the OpenTelemetry SDK packages loopguard declares as optional peers (see the
// README's dependency table); the core entry `loopguard` needs none of them. Every symbol by name.
export {
  createLoopGuardTelemetry,
  OTHER_TOOL,
  type LoopGuardTelemetry,
  type LoopGuardTelemetryOptions,
  type ObservableGuard,
} from './telemetry.js';
export { setupLoopGuardTelemetry, type LoopGuardTelemetrySetup, type SetupLoopGuardTelemetryOptions } from './setup.js';
export {
  TELEMETRY_SCOPE,
  METRIC_TOOL_CALLS,
  METRIC_REFUSALS,
  METRIC_ROUNDS,
  METRIC_RUNS_STARTED,
  METRIC_RUNS_EVICTED,
  METRIC_RUN_STOPS,
  METRIC_WASTED_CALLS,
  METRIC_WASTED_TOKENS,
  METRIC_RUNS_OPEN,
  METRIC_RUNS_AT_RISK,
  METRIC_RUN_STOP_EVENTS,
  LABEL_DECISION,
  LABEL_EVICTION_CAUSE,
  LABEL_TOOL,
  LABEL_PROFILE,
  LABEL_REFUSAL_REASON,
  LABEL_STOP_REASON,
  LABEL_VERDICT,
  EVENT_RUN_STOP,
  EVENT_TOOL_REFUSED,
  prometheusName,
  PROMETHEUS_METRICS,
  PROFILES,
  STOP_REASONS,
  REFUSAL_REASONS,
  ROUND_VERDICTS,
  DECISIONS,
} from './names.js';
