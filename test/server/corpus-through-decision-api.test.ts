// Every run of the evaluation corpus, played over `loopguard serve`'s decision API as a Python
// agent plays it — a round, a claim per call, the outcome of each allowed call, should-stop — gets
// the verdict and per-call decisions `loopguard replay` gives it (EVAL.md's numbers): the door for
// agents in any language decides as the engine does.
import { expect } from 'chai';
import { join } from 'node:path';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { Profile } from '../../src/core/types.js';
import type { ReplayCall } from '../../src/replay/replay-call.js';
import { startLoopGuardServer } from '../../src/server/index.js';
import { CORPUS_DIR, CORPUS_FILES, differenceFrom, recordedRun, type PlayedVerdict } from '../helpers/recorded-corpus-runs.js';
import { postJson } from './server-test-helpers.js';

async function playedOverHttp(url: string, runId: string, rounds: ReplayCall[][]): Promise<PlayedVerdict> {
  const run = `${url}/v1/runs/${encodeURIComponent(runId)}`;
  const decisions: string[] = [];
  for (let index = 0; index < rounds.length; index++) {
    if (index > 0) {
      const stop = await postJson(`${run}/should-stop`);
      if (stop.body.action === 'stop') return { verdict: `${stop.body.reason} after round ${stop.body.round}`, decisions };
    }
    const calls = rounds[index]!;
    const usage = calls.find((call) => call.usage !== undefined)?.usage;
    await postJson(`${run}/rounds`, usage === undefined ? {} : { usage });
    for (const call of calls) {
      if (call.compactedBefore === true) await postJson(`${run}/compacted`);
      const claim = await postJson(`${run}/calls`, { tool: call.tool, arguments: call.args, ...(call.callId === undefined ? {} : { callId: call.callId }) });
      if (claim.status !== 200) throw new Error(`claim answered ${claim.status}: ${JSON.stringify(claim.body)}`);
      decisions.push(claim.body.decision === 'allow' ? 'allow' : claim.body.reason);
      if (claim.body.decision !== 'allow') continue;
      const outcome = call.outcome as { result?: unknown; error?: unknown };
      const error = outcome.error as { type?: unknown; message?: unknown } | string | undefined;
      const body =
        error === undefined
          ? { result: outcome.result ?? null }
          : { error: typeof error === 'string' ? { message: error } : { ...(typeof error.type === 'string' ? { type: error.type } : {}), ...(typeof error.message === 'string' ? { message: error.message } : {}) } };
      const answer = await postJson(`${run}/calls/${encodeURIComponent(claim.body.ticket)}/outcome`, body);
      if (answer.status !== 200) throw new Error(`outcome answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
  }
  const stop = await postJson(`${run}/should-stop`);
  return { verdict: stop.body.action === 'stop' ? `${stop.body.reason} after round ${stop.body.round}` : 'finished', decisions };
}

describe("every corpus run, played over serve's decision API, gets the replay's verdict and decisions", function () {
  this.timeout(600_000);

  for (const profile of ['general', 'researcher', 'chat'] as const satisfies readonly Profile[]) {
    it(`${profile} profile`, async () => {
      const server = await startLoopGuardServer({ port: 0, guard: new LoopGuard({ profile, logger: { warn: () => undefined } }) });
      try {
        const moved: string[] = [];
        for (const [index, file] of CORPUS_FILES.entries()) {
          const replayed = await recordedRun(join(CORPUS_DIR, file), profile);
          const move = differenceFrom(file, replayed, 'in replay', await playedOverHttp(server.url, `run-${index}`, replayed.rounds), 'over the decision API');
          if (move !== undefined) moved.push(move);
        }
        expect(moved, `${moved.length} of ${CORPUS_FILES.length}:\n${moved.slice(0, 15).join('\n')}`).to.deep.equal([]);
      } finally {
        await server.close();
      }
    });
  }
});
