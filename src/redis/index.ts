// loopguard/redis: the shared run ledger on Redis / Redis Cluster / Valkey (README "Runs
// across processes"). ioredis is an optional peer dependency, loaded only by this entry point.
import { Redis } from 'ioredis';
import { useRedisClass } from './create-redis-run-store.js';

useRedisClass(Redis);

export { createRedisRunStore } from './create-redis-run-store.js';
export type { RedisRunStore, RedisRunStoreOptions, StoredRunSummary } from './create-redis-run-store.js';
export { RedisStoreTimeoutError } from './redis-store-timeout-error.js';
export { StoredRunUnreadableError } from './stored-run-unreadable-error.js';
export type { AppendResult, BusinessKey, BusinessKeyState, RunLogSummary, RunStore } from '../core/shared-ledger/run-store.js';
