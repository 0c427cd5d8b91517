// The two Redis topologies the shared-ledger suites run on (one server, a three-node
// cluster), with the faults they inject on the node that holds a given key.
import { spawnSync } from 'node:child_process';
import type { Cluster, Redis } from 'ioredis';
import { startRedisCluster, startRedisServer, type RedisClusterHandle, type RedisServer } from '../helpers/redis-servers.js';
import type { WorkerInit } from './fixtures/shared-worker.js';

export interface Topology {
  readonly name: string;
  connection(): Pick<WorkerInit, 'url' | 'clusterPorts'>;
  client(): Promise<Redis | Cluster>;
  /** Crashes (SIGKILL) the node holding `key` and starts it again with its append-only file. */
  crashAndRestart(key: string): Promise<void>;
  /** Crashes the node holding `key`; returns a function that starts it again. */
  crash(key: string): Promise<() => Promise<void>>;
  /** The server of the node holding `key` (to pause or stall it). */
  serverOf(key: string): RedisServer;
  /** Waits until the topology serves every key again (a cluster: every node's cluster_state:ok). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export async function singleServer(): Promise<Topology> {
  const server: RedisServer = await startRedisServer({ appendOnly: true });
  return {
    name: 'one Redis server',
    connection: () => ({ url: server.url }),
    client: () => server.client(),
    async crashAndRestart() {
      await server.crash();
      await server.restart();
    },
    async crash() {
      await server.crash();
      return () => server.restart();
    },
    serverOf: () => server,
    settle: async () => undefined,
    stop: () => server.stop(),
  };
}

export async function cluster(): Promise<Topology> {
  const handle: RedisClusterHandle = await startRedisCluster({ appendOnly: true });
  const nodeOf = (key: string): number => {
    // The node serving the key's slot, asked of the cluster itself.
    const slot = Number(spawnSync('redis-cli', ['-p', String(handle.ports[0]), 'cluster', 'keyslot', key], { encoding: 'utf8' }).stdout.trim());
    return handle.nodeForSlot(slot);
  };
  return {
    name: 'a three-node Redis Cluster',
    connection: () => ({ clusterPorts: [...handle.ports] }),
    client: () => handle.client(),
    async crashAndRestart(key) {
      const node = nodeOf(key);
      await handle.crash(node);
      await handle.restart(node);
    },
    async crash(key) {
      const node = nodeOf(key);
      await handle.crash(node);
      return () => handle.restart(node);
    },
    serverOf: (key) => handle.server(nodeOf(key)),
    settle: () => handle.settle(),
    stop: () => handle.stop(),
  };
}
