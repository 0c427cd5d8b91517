// `loopguard/client`: a `LoopGuard` whose runs live on a running `loopguard serve`
// (`new LoopGuard({ store: createRemoteRunStore({ url }) })`), so every integration runs
// against the server. The global fetch only, no dependency. Every symbol by name.
export { createRemoteRunStore, type RemoteRunStoreOptions } from './create-remote-run-store.js';
export { RemoteRunStoreError } from './remote-run-store-error.js';
export type { AppendResult, BusinessKey, BusinessKeyState, RunLogSummary, RunStore } from '../core/shared-ledger/run-store.js';
