import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoopGuardConfigError } from '../core/errors.js';
import { describeConfigValue } from '../core/describe-config-value.js';
import { LoopGuard, type LoopGuardEngineOptions } from '../core/loop-guard.js';
import { neverThrowingLogger } from '../core/never-throwing-logger.js';
import { thrownText } from '../core/thrown-text.js';
import { constantTimeEqual } from './constant-time-equal.js';
import { createMemoryRunStore } from '../core/shared-ledger/create-memory-run-store.js';
import type { RunStore } from '../core/shared-ledger/run-store.js';
import { DecisionApi, requireRunId } from './decision-api.js';
import { handleLedgerRequest, LEDGER_OPERATIONS } from './ledger-api.js';
import { LiveSpanRuns } from './live-span-runs.js';
import { otlpEncodingOf, otlpError, receiveOtlpTraces, type OtlpEncoding } from './otlp-traces-receiver.js';
import { readRequestBody } from './read-request-body.js';
import { ServerMetrics } from './server-metrics.js';
import { ServerRequestError } from './server-request-error.js';

/** Options of {@link startLoopGuardServer}. Every field is optional. */
export interface StartLoopGuardServerOptions {
  /** Interface to listen on. Default `127.0.0.1`: nothing off the machine reaches it unless you say so. */
  host?: string;
  /** Port. Default 4319 (next to the Collector's 4318); 0 picks a free one (see `LoopGuardServer.port`). */
  port?: number;
  /**
   * The engine that decides. Give one to add telemetry listeners (createLoopGuardTelemetry)
   * or a shared store (`store: createRedisRunStore(...)`, for replicas). Default: a new
   * LoopGuard built from `engine`.
   */
  guard?: LoopGuard;
  /** Options of the LoopGuard built when `guard` is not given (policy, store, limits). Default `{}`. */
  engine?: LoopGuardEngineOptions;
  /**
   * A bearer token every request but `/healthz` and `/readyz` must carry
   * (`Authorization: Bearer <token>`), compared in constant time. Default: none (any local
   * process may call; bind to loopback only, the default).
   */
  authToken?: string;
  /** Largest request body, on the wire and after gzip, in bytes. Default 4 194 304 (4 MiB, the Collector's default limit). */
  maxBodyBytes?: number;
  /** Most spans in one OTLP request; more is a 413. Default 10 000. */
  maxSpansPerRequest?: number;
  /**
   * Requests answered at once; past it, 503 (OTLP) / 429 (decision API) with `Retry-After`, so
   * exporters back off instead of queueing into a slow server. Default 256.
   */
  maxConcurrentRequests?: number;
  /** The `Retry-After` sent with 429/503, in seconds. Default 1. */
  retryAfterSeconds?: number;
  /** How long `close()` waits for requests in flight before dropping them, in ms. Default 10 000. */
  shutdownTimeoutMs?: number;
  /** Traces held for live evaluation of OTLP spans; the idlest is let go past it. Default 10 000. */
  maxTraces?: number;
  /**
   * Bytes of span text held for live evaluation, across traces (ids, names, the attributes the
   * readers keep; arguments and results are dropped once fed). The idlest traces are let go past
   * it; a span that alone would pass it is rejected. Default 268 435 456 (256 MiB).
   */
  maxHeldSpanBytes?: number;
  /**
   * Where `/v1/ledger/*` keeps the runs of remote ledgers (`createRemoteRunStore` from
   * `loopguard/client`). Default: the engine's shared store (`--redis`), else one
   * `createMemoryRunStore()` of this server (bounded: runs expire 7 days after their last
   * change, at most 10 000 runs and 100 000 business keys).
   */
  ledgerStore?: RunStore;
  /** Where the server reports its own trouble. Default console.warn. */
  logger?: {
    /** One line about a request that failed inside the server, or trouble while shutting down. */
    warn(message: string): void;
  };
}

/** A running server: where it listens, its engine, and how to stop it. */
export interface LoopGuardServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly guard: LoopGuard;
  readonly server: Server;
  /**
   * Stops taking requests, lets the ones in flight finish (up to `shutdownTimeoutMs`), ends the
   * live OTLP runs and flushes the engine's shared store. Idempotent; never rejects.
   */
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/**
 * Starts `loopguard serve` in this process: the decision API (`/v1/runs/...`) and the remote
 * ledger (`/v1/ledger/...`, for `loopguard/client`), both described in
 * docs/serve-openapi.yaml; the OTLP/HTTP traces receiver (`/v1/traces`), `/healthz`,
 * `/readyz` and the server's own Prometheus metrics (`/metrics`). node:http only: the
 * routes are a dozen fixed paths, and the decision API's latency budget is measured against
 * a bare node:http echo (bench/serve.ts).
 *
 * @throws LoopGuardConfigError naming the first bad option.
 */
export async function startLoopGuardServer(options: StartLoopGuardServerOptions = {}): Promise<LoopGuardServer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 4319;
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSpans = options.maxSpansPerRequest ?? 10_000;
  const maxConcurrent = options.maxConcurrentRequests ?? 256;
  const retryAfter = options.retryAfterSeconds ?? 1;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
  const authToken = options.authToken;
  const logger = neverThrowingLogger(options.logger ?? { warn: (message: string) => console.warn(`loopguard serve: ${message}`) });
  if (typeof host !== 'string' || host.length === 0) throw configError('host', 'must be a host name or address', host);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw configError('port', 'must be a whole number from 0 to 65535', port);
  for (const [field, value] of Object.entries({ maxBodyBytes, maxSpansPerRequest: maxSpans, maxConcurrentRequests: maxConcurrent, ...(options.maxHeldSpanBytes !== undefined ? { maxHeldSpanBytes: options.maxHeldSpanBytes } : {}) })) {
    if (!Number.isSafeInteger(value) || value < 1) throw configError(field, 'must be a whole number ≥ 1', value);
  }
  if (!Number.isFinite(retryAfter) || retryAfter < 0) throw configError('retryAfterSeconds', 'must be a number of seconds ≥ 0', retryAfter);
  if (!Number.isFinite(shutdownTimeoutMs) || shutdownTimeoutMs < 0) throw configError('shutdownTimeoutMs', 'must be a number of ms ≥ 0', shutdownTimeoutMs);
  if (authToken !== undefined && (typeof authToken !== 'string' || authToken.length < 16)) {
    throw configError('authToken', 'must be a string of at least 16 characters (openssl rand -hex 32)', authToken === undefined ? authToken : '<hidden>');
  }
  if (options.guard !== undefined && options.engine !== undefined) throw configError('engine', 'give either guard or engine, not both', '{…}');
  const guard = options.guard ?? new LoopGuard({ logger: { warn: (message) => logger.warn(message) }, ...options.engine });

  const ledgerStore = options.ledgerStore ?? guard.store ?? createMemoryRunStore();
  for (const method of ['appendRunEvents', 'readRunEvents', 'claimBusinessKey', 'takeOverBusinessKey', 'completeBusinessKey', 'releaseBusinessKey'] as const) {
    if (typeof (ledgerStore as unknown as Record<string, unknown>)?.[method] !== 'function') throw configError(`ledgerStore.${method}`, 'must be a function (pass a RunStore)', ledgerStore);
  }
  const api = new DecisionApi({ guard });
  const live = new LiveSpanRuns({
    guard,
    ...(options.maxTraces !== undefined ? { maxTraces: options.maxTraces } : {}),
    ...(options.maxHeldSpanBytes !== undefined ? { maxHeldSpanBytes: options.maxHeldSpanBytes } : {}),
  });
  const metrics = new ServerMetrics(() => {
    const stats = guard.stats();
    return {
      loopguard_serve_runs_open: { help: 'Runs open on this server (live OTLP runs and decision-API runs).', value: stats.openRuns },
      loopguard_serve_runs_at_risk: { help: 'Open runs with a stale or refused streak of 2 or more.', value: stats.runsAtRisk },
      loopguard_serve_live_traces: { help: 'Traces held for live evaluation of OTLP spans.', value: live.traceCount },
      loopguard_serve_live_span_bytes: { help: 'Bytes of span text held for live evaluation (bounded by maxHeldSpanBytes).', value: live.bytesHeld },
      loopguard_serve_open_tickets: { help: 'Claimed calls whose outcome has not been recorded.', value: api.openTickets },
    };
  });
  let closing = false;
  let requestNumber = 0;

  const server = createServer((request, response) => {
    const started = process.hrtime.bigint();
    let route = 'unknown';
    metrics.inFlight += 1;
    response.on('close', () => {
      metrics.inFlight -= 1;
      metrics.request(route, request.method ?? '', response.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    void handle(request, response, (name) => (route = name));
  });
  // Slow-loris bounds: a client must send its headers and body in reasonable time.
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;

  async function handle(request: IncomingMessage, response: ServerResponse, named: (route: string) => void): Promise<void> {
    const method = request.method ?? 'GET';
    const url = request.url ?? '/';
    const path = url.split('?', 1)[0]!;
    const otlp = path === '/v1/traces';
    let encoding: OtlpEncoding = 'json';
    try {
      if (otlp) named('/v1/traces');
      if (path === '/healthz' || path === '/readyz') {
        named(path);
        if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, 'GET');
        if (path === '/healthz') return sendJson(response, 200, { status: 'ok' });
        if (closing) return sendJson(response, 503, { status: 'shutting down' });
        return sendJson(response, 200, { status: 'ready', shared: guard.isShared });
      }
      if (closing) {
        response.setHeader('connection', 'close');
        throw new ServerRequestError({ status: 503, code: 'shutting_down', message: 'the server is shutting down; retry on another replica', retryAfter });
      }
      if (authToken !== undefined) {
        const header = request.headers.authorization ?? '';
        const presented = header.startsWith('Bearer ') ? header.slice(7) : '';
        if (!constantTimeEqual(presented, authToken)) {
          response.setHeader('www-authenticate', 'Bearer');
          throw new ServerRequestError({ status: 401, code: 'unauthorized', message: 'missing or wrong bearer token: send Authorization: Bearer <token> (the --auth-token / LOOPGUARD_SERVE_TOKEN the server was started with)' });
        }
      }
      if (metrics.inFlight > maxConcurrent) {
        metrics.overloaded += 1;
        // OTLP exporters retry 503 with Retry-After; API clients are told to slow down.
        throw new ServerRequestError({ status: otlp ? 503 : 429, code: 'overloaded', message: `more than ${maxConcurrent} requests in flight (maxConcurrentRequests); retry after ${retryAfter} s`, retryAfter });
      }
      if (otlp) {
        if (method !== 'POST') throw methodNotAllowed(method, 'POST');
        encoding = otlpEncodingOf(request.headers['content-type']);
        const body = await readRequestBody(request, maxBodyBytes);
        const answer = await receiveOtlpTraces(body, encoding, live, maxSpans, (requestNumber += 1));
        metrics.spansReceived += answer.received;
        metrics.spansRejected += answer.rejected;
        // A known length: no chunked framing around a body that is usually empty.
        response.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': Buffer.byteLength(answer.body) });
        response.end(answer.body);
        return;
      }
      if (path === '/metrics') {
        named('/metrics');
        if (method !== 'GET') throw methodNotAllowed(method, 'GET');
        response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        response.end(metrics.render());
        return;
      }
      if (path === '/v1/runs') {
        named('/v1/runs');
        if (method !== 'GET') throw methodNotAllowed(method, 'GET');
        const limitText = new URL(url, 'http://x').searchParams.get('limit');
        const limit = limitText === null ? 1000 : Number(limitText);
        if (!Number.isSafeInteger(limit) || limit < 1) throw new ServerRequestError({ status: 400, code: 'bad_request', field: 'limit', message: `limit: must be a whole number ≥ 1, got ${JSON.stringify(limitText)}` });
        return sendJson(response, 200, api.list(limit));
      }
      if (path.startsWith('/v1/ledger/')) {
        const operation = path.slice('/v1/ledger/'.length);
        if (!LEDGER_OPERATIONS.has(operation)) {
          throw new ServerRequestError({ status: 404, code: 'not_found', message: `no route ${method} ${path}; the ledger operations are ${[...LEDGER_OPERATIONS].join(', ')} (docs/serve-openapi.yaml)` });
        }
        named(`/v1/ledger/${operation}`);
        if (method !== 'POST') throw methodNotAllowed(method, 'POST');
        return sendJson(response, 200, await handleLedgerRequest(ledgerStore, operation, await readJsonBody(request, maxBodyBytes)));
      }
      const match = /^\/v1\/runs\/([^/]+)(?:\/(calls|rounds|should-stop|state|compacted|end)(?:\/([^/]+)\/(outcome))?)?$/.exec(path);
      if (match === null) throw new ServerRequestError({ status: 404, code: 'not_found', message: `no route ${method} ${path}; see docs/serve-openapi.yaml` });
      const runId = requireRunId(decodePathPart(match[1]!, 'runId'));
      const action = match[2];
      if (action === undefined) {
        named('/v1/runs/{runId}');
        if (method !== 'GET') throw methodNotAllowed(method, 'GET');
        return sendJson(response, 200, await api.view(runId));
      }
      if (match[4] !== undefined && action !== 'calls') throw new ServerRequestError({ status: 404, code: 'not_found', message: `no route ${method} ${path}` });
      if (method !== 'POST') throw methodNotAllowed(method, 'POST');
      const body = await readJsonBody(request, maxBodyBytes);
      if (match[4] !== undefined) {
        named('/v1/runs/{runId}/calls/{ticket}/outcome');
        return sendJson(response, 200, await api.outcome(runId, decodePathPart(match[3]!, 'ticket'), body));
      }
      named(`/v1/runs/{runId}/${action}`);
      switch (action) {
        case 'calls':
          return sendJson(response, 200, await api.claim(runId, body));
        case 'rounds':
          return sendJson(response, 200, await api.beginRound(runId, body));
        case 'should-stop':
          return sendJson(response, 200, await api.shouldStop(runId));
        case 'state':
          return sendJson(response, 200, await api.reportState(runId, body));
        case 'compacted':
          return sendJson(response, 200, await api.contextCompacted(runId));
        default:
          return sendJson(response, 200, await api.end(runId));
      }
    } catch (error) {
      if (!(error instanceof ServerRequestError)) {
        // A bug here answers this request with a 500 and goes to the log; the server and every
        // other run carry on.
        logger.warn(`${method} ${path} failed: ${error instanceof Error && typeof error.stack === 'string' ? error.stack : thrownText(error)}`);
      }
      const failure =
        error instanceof ServerRequestError ? error : new ServerRequestError({ status: 500, code: 'internal', message: 'the server failed on this request (see its log); other runs are not affected' });
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (failure.retryAfter !== undefined) response.setHeader('retry-after', String(Math.ceil(failure.retryAfter)));
      if (otlp) {
        const answer = otlpError(encoding, failure.status, failure.message);
        response.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': Buffer.byteLength(answer.body) });
        response.end(answer.body);
        return;
      }
      sendJson(response, failure.status, { error: { code: failure.code, message: failure.message, ...(failure.field !== undefined ? { field: failure.field } : {}) } });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      // Still listening while requests in flight finish: a new request gets 503 with
      // Retry-After and `Connection: close`, and /readyz says 503, so a load balancer moves
      // traffic to another replica instead of seeing refused connections.
      closing = true;
      server.closeIdleConnections();
      const deadline = Date.now() + shutdownTimeoutMs;
      while (metrics.inFlight > 0 && Date.now() < deadline) {
        await new Promise<void>((resolve) => setTimeout(resolve, 10).unref());
      }
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Past the deadline, connections still open are dropped.
      server.closeAllConnections();
      await stopped;
      try {
        live.endAll();
        await guard.flush();
      } catch (error) {
        logger.warn(`shutdown: ${thrownText(error)}`);
      }
    })());

  return { url: `http://${shownHost}:${address.port}`, host: address.address, port: address.port, guard, server, close };
}

function sendJson(response: ServerResponse, status: number, body: Json): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<Json> {
  const type = (request.headers['content-type'] ?? 'application/json').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    request.resume();
    throw new ServerRequestError({ status: 415, code: 'unsupported_media_type', message: `Content-Type ${JSON.stringify(type)}: the decision API takes application/json (curl: --json '{…}')` });
  }
  const body = await readRequestBody(request, maxBytes);
  if (body.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new ServerRequestError({ status: 400, code: 'bad_json', message: `the body is not valid JSON: ${(error as Error).message}` });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ServerRequestError({ status: 400, code: 'bad_request', message: 'the body must be a JSON object' });
  }
  return parsed as Json;
}

function decodePathPart(part: string, field: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ServerRequestError({ status: 400, code: 'bad_request', field, message: `${field}: not a valid percent-encoded path segment` });
  }
}

function methodNotAllowed(method: string, allowed: string): ServerRequestError {
  return new ServerRequestError({ status: 405, code: 'method_not_allowed', message: `${method} is not allowed here; use ${allowed}` });
}

function configError(field: string, problem: string, value: unknown): LoopGuardConfigError {
  return new LoopGuardConfigError({ field, message: `${problem}, got ${describeConfigValue(value)}` });
}
