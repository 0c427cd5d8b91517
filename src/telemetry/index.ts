export {
  createLoopGuardTelemetry,
  type LoopGuardTelemetry,
  type LoopGuardTelemetryOptions,
  type ObservableGuard,
} from './telemetry.js';
export { setupLoopGuardTelemetry, type LoopGuardTelemetrySetup, type SetupLoopGuardTelemetryOptions } from './setup.js';
export * from './names.js';
