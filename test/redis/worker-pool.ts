// Worker processes for the shared-ledger tests (fixtures/shared-worker.ts), each a real Node
// process with its own engine on the shared store.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorkerInit, WorkerReply, WorkerRequest } from './fixtures/shared-worker.js';

const WORKER = fileURLToPath(new URL('./fixtures/shared-worker.ts', import.meta.url));

export interface Worker {
  readonly process: ChildProcess;
  request(message: Exclude<WorkerRequest, WorkerInit | { type: 'exit' }>): Promise<WorkerReply>;
  /** Resolves when the worker says it claimed write `id` (mode `hang`). */
  claimed(id: number): Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
  exit(): Promise<void>;
}

let nextId = 1;
export const requestId = (): number => nextId++;

export async function startWorker(init: WorkerInit): Promise<Worker> {
  const child = fork(WORKER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, (reply: WorkerReply) => void>();
  const claimedWaiters = new Map<number, () => void>();
  let readyCount = 0;
  let onReady: (() => void) | undefined;
  child.on('message', (message: WorkerReply | { type: 'ready' } | { type: 'claimed'; id: number }) => {
    if ('type' in message && message.type === 'ready') {
      readyCount += 1;
      onReady?.();
      return;
    }
    if ('type' in message && message.type === 'claimed') {
      claimedWaiters.get(message.id)?.();
      return;
    }
    const reply = message as WorkerReply;
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const ready = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => readyCount >= count && resolve();
      onReady = check;
      child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
      check();
    });
  await ready(1);
  child.send(init);
  await ready(2);
  return {
    process: child,
    request(message) {
      return new Promise((resolve, reject) => {
        waiting.set(message.id, (reply) => (reply.error === undefined ? resolve(reply) : reject(new Error(`worker: ${reply.error}`))));
        child.send(message);
      });
    },
    claimed: (id) => new Promise((resolve) => claimedWaiters.set(id, resolve)),
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
    async exit() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'exit' });
      await exited;
    },
  };
}
