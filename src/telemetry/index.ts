export {
  createLoopGuardTelemetry,
  OTHER_TOOL,
  type LoopGuardTelemetry,
  type LoopGuardTelemetryOptions,
  type ObservableGuard,
} from './telemetry.js';
export { setupLoopGuardTelemetry, type LoopGuardTelemetrySetup, type SetupLoopGuardTelemetryOptions } from './setup.js';
export * from './names.js';
