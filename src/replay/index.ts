// `loopguard/replay`: recorded runs (transcripts, OTLP JSON, agent trajectories) through the
// same engine, as the `loopguard replay` CLI does. Its signatures use Node's stream types
// (`@types/node` for type-checking), which is why it is not on the core entry. Every symbol by name.
export { replayInputs, type ReplayInputsOptions, type ReplaySummary } from './replay-inputs.js';
export { ReplaySession } from './replay-session.js';
export type { ReplayCall, ReplayModelRound } from './replay-call.js';
export type { RunReport, ReplayDecision, ReplayStop } from './run-report.js';
export { ReplayInputError, ReplayFileError } from './replay-input-error.js';
