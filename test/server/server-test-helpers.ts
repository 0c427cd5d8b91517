import { LoopGuard } from '../../src/core/loop-guard.js';

/** POSTs JSON (or a raw body) and returns status, headers and the parsed JSON body. */
export async function postJson(
  url: string,
  body: unknown = {},
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : body instanceof Uint8Array ? Buffer.from(body) : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text.length > 0 && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text };
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text };
}

/** One step of a plain tool loop: what the agent calls in a round. */
export interface LoopStep {
  tool: string;
  args: unknown;
  result: unknown;
}

/**
 * Plays a tool loop over the decision API the way a client does (round, claim, outcome when
 * allowed, should-stop) and returns one line per event, comparable with {@link playInProcess}.
 */
export async function playOverHttp(base: (step: number) => string, runId: string, rounds: LoopStep[][]): Promise<string[]> {
  const log: string[] = [];
  for (let index = 0; index < rounds.length; index++) {
    const url = `${base(index)}/v1/runs/${encodeURIComponent(runId)}`;
    await postJson(`${url}/rounds`);
    for (const step of rounds[index]!) {
      const claim = await postJson(`${base(index + 1)}/v1/runs/${encodeURIComponent(runId)}/calls`, { tool: step.tool, arguments: step.args });
      if (claim.status !== 200) throw new Error(`claim answered ${claim.status}: ${JSON.stringify(claim.body)}`);
      if (claim.body.decision === 'allow') {
        const outcome = await postJson(`${base(index + 2)}/v1/runs/${encodeURIComponent(runId)}/calls/${encodeURIComponent(claim.body.ticket)}/outcome`, { result: step.result });
        if (outcome.status !== 200) throw new Error(`outcome answered ${outcome.status}: ${JSON.stringify(outcome.body)}`);
        log.push(`${index + 1} ${step.tool} allow-${claim.body.kind} ${outcome.body.novelty}`);
      } else {
        log.push(`${index + 1} ${step.tool} ${claim.body.decision} ${claim.body.reason}`);
      }
    }
    const stop = await postJson(`${base(index + 3)}/v1/runs/${encodeURIComponent(runId)}/should-stop`);
    log.push(`${index + 1} ${stop.body.action}${stop.body.reason !== undefined ? ` ${stop.body.reason}` : ''}`);
    if (stop.body.action === 'stop') break;
  }
  return log;
}

/** The same loop on one in-process engine (the reference the server must equal). */
export async function playInProcess(rounds: LoopStep[][], guard: LoopGuard = new LoopGuard(), runId = 'reference'): Promise<string[]> {
  const run = guard.startRun(runId);
  const log: string[] = [];
  for (let index = 0; index < rounds.length; index++) {
    run.beginRound();
    for (const step of rounds[index]!) {
      const ticket = await run.claimCall({ tool: step.tool, args: step.args });
      if (ticket.decision.action === 'allow') {
        const novelty = run.finishCall(ticket, { result: step.result });
        log.push(`${index + 1} ${step.tool} allow-${ticket.decision.kind} ${novelty}`);
      } else {
        const stopped = run.stopped !== undefined && ticket.decision.reason === 'run.stopped';
        log.push(`${index + 1} ${step.tool} ${stopped ? 'stop' : 'refuse'} ${stopped ? run.stopped!.reason : ticket.decision.reason}`);
      }
    }
    const stop = run.shouldStop();
    log.push(`${index + 1} ${stop.action}${stop.action === 'stop' ? ` ${stop.reason}` : ''}`);
    if (stop.action === 'stop') break;
  }
  return log;
}

/**
 * A loop that goes nowhere, then changes tack: the same search three rounds running (the
 * repeat is refused once its result is confirmed unchanged), a fresh query, and the same
 * search again until the run stops.
 */
export const LOOPING_RUN: LoopStep[][] = [
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
  [
    { tool: 'search', args: { q: 'refund window' }, result: { hits: ['doc-3'] } },
    { tool: 'read', args: { id: 'doc-3' }, result: { text: '30 days' } },
  ],
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
];
