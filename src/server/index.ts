// `loopguard/server`: `loopguard serve` in your own process — the decision API for agents in
// any language and the OTLP/HTTP traces receiver. Node only (node:http); the engine comes from
// `loopguard`, a shared store from `loopguard/redis`. Every symbol by name.
export { startLoopGuardServer, type LoopGuardServer, type StartLoopGuardServerOptions } from './start-loop-guard-server.js';
export { ServerRequestError } from './server-request-error.js';
