import { LoopGuard } from '../core/loop-guard.js';
import type { LoopGuardOptions } from '../core/types.js';
import { createRedisRunStore, type RedisRunStore } from '../redis/create-redis-run-store.js';
import type { StoredRunUnreadableError } from '../redis/stored-run-unreadable-error.js';
import { escapeControl } from '../replay/escape-terminal.js';
import { CliOptionError } from './cli-option-error.js';
import { keyPrefixProblem } from './key-prefix-option.js';
import { loadCliPolicy } from './load-cli-policy.js';
import { reportCliOptionError } from './report-cli-option-error.js';
import { MAX_TIMER_MS, wholeNumberOption } from './whole-number-option.js';
import { printStoredRun } from './print-stored-run.js';
import { printStoredRunList } from './print-stored-run-list.js';
import { EXIT_BAD_INPUT, EXIT_OK, type CliIo } from './replay-command.js';
import { connectRunsRedis, type RunsRedisConnection } from './runs-connect-redis.js';
import { redactRedisUrl } from './runs-redact-url.js';
import { rejectAfter } from '../core/reject-after.js';
import { RunsRedisError } from './runs-redis-error.js';
import { redisUrlProblem } from './runs-redis-url-problem.js';
import { ReportOutput } from '../replay/report-output.js';
import { ReportOutputError } from '../replay/report-output-error.js';
import { createSnapshotRunStore } from './runs-snapshot-store.js';
import { buildRunTimeline } from './runs-timeline.js';

/**
 * Exit code of `loopguard runs` when Redis cannot be reached or read, or the output cannot be
 * written (0 done, 2 bad input or no such run).
 */
export const EXIT_REDIS_UNAVAILABLE = 1;

export interface RunsCommandOptions {
  /** The Redis URL (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS); a Cluster node's URL works too. */
  redis: string;
  /** One run to print; without it the stored runs are listed. */
  run?: string;
  format: 'text' | 'json';
  /** The key prefix the engines were given (createRedisRunStore's keyPrefix). Default `'loopguard'`. */
  keyPrefix?: string;
  /** Runs listed, newest first (default 100); with `run`, only the last this many rounds of its timeline (default all). */
  limit?: number;
  /**
   * The library's options as JSON (as for `loopguard replay --policy`): the ledger is rebuilt
   * under it. Decisions are in the log whatever the policy; novelty (new facts, seen results)
   * and streaks are judged by the engine that applies the log. Default: the library defaults.
   */
  policy?: string;
  /**
   * The whole command (connecting and every read) must be done within this many ms, from 1 to
   * 2147483647 (Node's largest timer). Default 2000.
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 2000;
/** `--limit`, for commander (main.ts) and for in-process callers alike. */
export const limitOption = wholeNumberOption('runs', '--limit', { min: 1 });
/** `--timeout-ms`: a timer, so at most Node's largest (a longer one fires after 1 ms, so every read would time out at once). */
export const timeoutMsOption = wholeNumberOption('runs', '--timeout-ms', { min: 1, max: MAX_TIMER_MS, unit: 'milliseconds' });
const DEFAULT_LIST_LIMIT = 100;

/**
 * `loopguard runs --redis URL [RUN]`: lists the runs stored in Redis, or prints one run's
 * ledger, stop and per-round timeline for an SRE. Only reads: the ledger is rebuilt by
 * resuming the run on a fresh engine over a read-only snapshot of its log, exactly as a
 * process joining the run would. Returns 0, 2 for bad input or a run that is not stored, or
 * 1 when Redis cannot be reached or read (within `timeoutMs` and a little; a message, no stack).
 */
export async function runRunsCommand(options: RunsCommandOptions, io: CliIo): Promise<number> {
  // Run ids, tool names, key prefixes and server errors are all data: escaped before printing.
  const say = (text: string): void => void io.stderr.write(`${escapeControl(text)}\n`);
  const redisUrl = options.redis;
  const urlProblem = typeof redisUrl === 'string' ? redisUrlProblem(redisUrl) : `--redis must be a redis:// or rediss:// URL (redis://host:6379), got ${JSON.stringify(String(redisUrl))}`;
  if (urlProblem !== undefined) {
    say(`loopguard runs: ${urlProblem}`);
    return EXIT_BAD_INPUT;
  }
  const shownUrl = redactRedisUrl(redisUrl);
  const keyPrefix = options.keyPrefix ?? 'loopguard';
  // The store's own rule, checked before connecting: a typo should not wait on the network.
  const keyPrefixText = keyPrefixProblem(keyPrefix);
  if (keyPrefixText !== undefined) {
    say(`loopguard runs: ${keyPrefixText}`);
    return EXIT_BAD_INPUT;
  }
  // In-process callers skip commander's parsers: the same checks, by the same functions.
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    if (options.limit !== undefined) limitOption(String(options.limit));
    timeoutMsOption(String(timeoutMs));
  } catch (error) {
    if (error instanceof CliOptionError) return reportCliOptionError(error, io);
    throw error;
  }
  if (options.format !== 'text' && options.format !== 'json') {
    say(`loopguard runs: --format must be text or json, got ${JSON.stringify(String(options.format))}`);
    return EXIT_BAD_INPUT;
  }
  if (options.run !== undefined && (typeof options.run !== 'string' || options.run.length === 0)) {
    say('loopguard runs: the run id is empty; leave it out to list the stored runs');
    return EXIT_BAD_INPUT;
  }
  let policy: LoopGuardOptions = {};
  if (options.run !== undefined && options.policy !== undefined) {
    try {
      policy = await loadCliPolicy('runs', options.policy);
    } catch (error) {
      if (error instanceof CliOptionError) return reportCliOptionError(error, io);
      throw error;
    }
  }

  // A full disk (ENOSPC) is one line and exit 1, like an unreachable Redis; a reader that went
  // away (`| head`) just ends the output.
  const output = new ReportOutput(io.stdout, 'stdout');
  const print = async (text: string): Promise<void> => {
    await output.write(text);
    await output.flushed();
  };
  let connection: RunsRedisConnection;
  try {
    connection = await connectRunsRedis(redisUrl, timeoutMs);
  } catch (error) {
    if (error instanceof RunsRedisError) {
      say(`loopguard runs: ${error.message}`);
      return EXIT_REDIS_UNAVAILABLE;
    }
    throw error;
  }
  try {
    const store = createRedisRunStore({ client: connection.client, keyPrefix, timeoutMs });
    // One budget for connecting and every read, not one each: an SRE's script waits
    // --timeout-ms, not a multiple of it.
    const read = async <T>(what: string, promise: Promise<T>): Promise<T> => {
      try {
        return await rejectAfter(promise, Math.max(0, connection.deadline - Date.now()), () => new Error(`no answer within --timeout-ms ${timeoutMs} ms`));
      } catch (error) {
        // Redis errors only (refused, timed out, MOVED, WRONGTYPE…): a bug elsewhere still throws.
        throw new RunsRedisError(`reading ${what} from Redis at ${shownUrl} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    };

    if (options.run === undefined) {
      const limit = options.limit ?? DEFAULT_LIST_LIMIT;
      // A run whose key holds the wrong Redis type is left out and named with its key, and the
      // healthy runs are still listed (audit d9: one such key failed the whole list, blamed on
      // the index). Still exit 1: Redis could not be read, as for that run on its own.
      const unreadable: StoredRunUnreadableError[] = [];
      const runs = await read('the run index', store.listRuns({ limit, onUnreadable: (error) => unreadable.push(error) }));
      const context = { redis: shownUrl, keyPrefix, limit, unreadable: unreadable.map((error) => ({ runId: error.runId, key: error.key, error: error.cause.message })) };
      await print(printStoredRunList(runs, context, options.format));
      for (const run of runs) sayProblems(run.runId, run.problems ?? []);
      for (const error of unreadable) say(`loopguard runs: cannot read run ${JSON.stringify(error.runId)} at ${shownUrl}: ${error.message}`);
      return unreadable.length === 0 ? EXIT_OK : EXIT_REDIS_UNAVAILABLE;
    }
    return await printOneRun(store, read, options.run, policy, say);
  } catch (error) {
    if (error instanceof RunsRedisError || error instanceof ReportOutputError) {
      say(`loopguard runs: ${error.message}`);
      return EXIT_REDIS_UNAVAILABLE;
    }
    throw error;
  } finally {
    connection.close();
  }

  /** Values loopguard never writes, read as absent: one line each, naming the key. */
  function sayProblems(runId: string, problems: readonly string[]): void {
    for (const problem of problems) say(`loopguard runs: run ${JSON.stringify(runId)}: ${problem}`);
  }

  async function printOneRun(
    store: RedisRunStore,
    read: <T>(what: string, promise: Promise<T>) => Promise<T>,
    runId: string,
    engineOptions: LoopGuardOptions,
    warn: (text: string) => void,
  ): Promise<number> {
    const summary = await read(`run ${JSON.stringify(runId)}`, store.describeRun(runId));
    if (summary === undefined) {
      warn(
        `loopguard runs: no run ${JSON.stringify(runId)} under key prefix ${JSON.stringify(keyPrefix)} at ${shownUrl}: ` +
          'it never existed there, or it expired (a run\'s keys expire runTtlMs after its last change). ' +
          'Check --key-prefix; `loopguard runs --redis URL` lists the stored runs.',
      );
      return EXIT_BAD_INPUT;
    }
    // Read once: the ledger and the timeline are built from the same entries, even while the
    // run is live and other processes append.
    const entries = await read(`the log of run ${JSON.stringify(runId)}`, store.readRunEvents(runId, 0));
    const engineWarnings: string[] = [];
    const guard = new LoopGuard({
      ...engineOptions,
      store: createSnapshotRunStore(runId, entries),
      logger: { warn: (message) => engineWarnings.push(message) },
    });
    const run = await guard.resumeRun(runId);
    // Nothing more is done with `run`: shouldStop() or end() would log a stop or an end.
    const timeline = buildRunTimeline(entries, store.keysOf(runId).log);
    await print(
      printStoredRun(
        {
          runId,
          redis: shownUrl,
          keyPrefix,
          summary,
          ledger: run.partial(),
          stop: run.stopped,
          ended: run.isEnded,
          timeline,
          policy: options.policy,
          ...(options.limit === undefined ? {} : { lastRounds: options.limit }),
        },
        options.format,
      ),
    );
    sayProblems(runId, summary.problems ?? []);
    // Unreadable entries are listed with the timeline; anything else the engine said is news.
    for (const message of engineWarnings) if (!message.startsWith('run log entry ')) warn(`loopguard runs: ${message}`);
    return EXIT_OK;
  }
}
