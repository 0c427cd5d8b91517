/**
 * The OTLP load client of bench/serve.ts, run as a child process so that building requests,
 * sending them and reading the answers never shares the server's event loop or its core
 * (until 2026-12-04 the client ran in the server's process and took about half its time).
 *
 * Protocol (IPC): the parent sends `{ kind: 'prepare', requests, spansPerRequest }`; the client
 * answers `{ kind: 'prepared', bytes }` (one request's size). Then, per measured target, the parent
 * sends `{ kind: 'send', url, warmup, concurrency }`; the client builds fresh bodies with the OTel JS
 * SDK's protobuf serializer (what an app's OTLP exporter sends; new trace ids, so new runs), posts
 * them and answers `{ kind: 'sent', seconds, spans }` for the requests after the warm-up ones.
 */
import { Agent, request as httpRequest } from 'node:http';
import { buildOtlpBenchRequests as buildRequests } from './lib/otlp-bench-requests.js';

export type LoadClientCommand =
  | { kind: 'prepare'; requests: number; spansPerRequest: number }
  | { kind: 'send'; url: string; warmup: number; concurrency: number }
  | { kind: 'exit' };

export type LoadClientAnswer = { kind: 'prepared'; bytes: number } | { kind: 'sent'; seconds: number; spans: number } | { kind: 'failed'; message: string };

const agent = new Agent({ keepAlive: true, maxSockets: 8 });
let requestCount = 0;
let spansPerRequest = 0;

function post(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function send(url: string, warmup: number, concurrency: number): Promise<{ seconds: number; spans: number }> {
  // New trace ids every send (the SDK draws them), so a loopguard server sees new runs each time.
  const fresh = buildRequests(requestCount, spansPerRequest);
  for (const body of fresh.slice(0, warmup)) {
    const status = await post(url, body);
    if (status !== 200) throw new Error(`${url} answered ${status} during the warm-up`);
  }
  let next = warmup;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (next < fresh.length) {
      const status = await post(url, fresh[next++]!);
      if (status !== 200) throw new Error(`${url} answered ${status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, spans: (fresh.length - warmup) * spansPerRequest };
}

function answer(message: LoadClientAnswer): void {
  process.send!(message);
}

process.on('message', (command: LoadClientCommand) => {
  if (command.kind === 'exit') {
    agent.destroy();
    process.disconnect();
    return;
  }
  if (command.kind === 'prepare') {
    requestCount = command.requests;
    spansPerRequest = command.spansPerRequest;
    answer({ kind: 'prepared', bytes: buildRequests(1, spansPerRequest)[0]!.length });
    return;
  }
  send(command.url, command.warmup, command.concurrency).then(
    (result) => answer({ kind: 'sent', ...result }),
    (error: Error) => answer({ kind: 'failed', message: error.message }),
  );
});
