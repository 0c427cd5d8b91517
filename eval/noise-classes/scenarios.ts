/**
 * Loops hidden behind noise (issue 24) and failures that teach (issue 18 #3, #5): for each
 * class a looping run and its healthy twin, in the replay transcript format (one JSON line
 * per call, one call per round), built from real tool output:
 * - pytest 8 output (session header, `F` progress line, FAILURES section, the centred
 *   summary `1 failed, 4 passed in 0.05s`), `go test` output (`--- FAIL: TestX (0.00s)`,
 *   `FAIL\tpkg\t0.004s`);
 * - an Elasticsearch `_search` response as its reference documents it (`took`, `_shards`,
 *   `hits.max_score`, per-hit `_score`);
 * - GitHub REST's 401 (`{"message":"Bad credentials","documentation_url":…}`) as Octokit
 *   reports it, with the `x-github-request-id` that differs on every response;
 * - `curl -sI` as it prints an HTTP/2 response (the `date:` header the server's clock), an
 *   evaluation script's tqdm bar (`50/50 [00:03<00:00, 14.10it/s]`, tqdm 4's format), and jest
 *   under Node 21+ behind Node's punycode warning (`(node:48213) [DEP0040] DeprecationWarning`);
 * - IPython 8's traceback (`Cell In[7], line 1`) under OpenHands' `execute_ipython_cell` footer,
 *   kubectl 1.31's `rollout status` text, and gemini-cli's `run_shell_command` answer
 *   (`Command:` … `Process Group PGID:`) for a call with a `description`, and `cargo test`'s
 *   libtest output with its per-test lines in the order the threads finished;
 * - tau-bench's retail tools (`find_user_id_by_email` → "Error: user not found");
 * - file reads as the agents print them: Claude Code's Read (`     1→line`), str_replace_editor
 *   `view` (`cat -n` columns under "Here's the result of running `cat -n` on …"), SWE-agent's
 *   viewer (`[File: … (N lines total)]`, `N:line`), mini-swe-agent's `cat` / `sed -n` / `nl -ba`.
 * Only the volatile parts (durations, scores, request ids, stamps) vary between calls, the
 * way they do on a real machine. Used by test/eval/noise-classes.test.ts (engine and
 * replay) and by eval/run-eval.ts for EVAL.md's section on these classes.
 */

/** One recorded call: the replay transcript line without `run`/`round` (added in order). */
export interface ScenarioCall {
  tool: string;
  args: Record<string, unknown>;
  result?: unknown;
  error?: { type: string; message: string; status?: number };
  /** Start time, epoch ms. */
  ts: number;
}

export interface NoiseScenario {
  /** Run id in the transcript. */
  name: string;
  /** The class of issue 24 / issue 18 it exercises. */
  noiseClass: string;
  label: 'looping' | 'healthy';
  /** Looping runs: 0-based index of the loop's first call (its result is then repeated). */
  loopStart?: number;
  calls: ScenarioCall[];
}

const T0 = 1_794_474_000_000;

function pytestOutput(failed: number, passed: number, seconds: string, failing: string[]): string {
  const progress = '.'.repeat(passed) + 'F'.repeat(failed);
  const summary = ` ${failed > 0 ? `${failed} failed, ` : ''}${passed} passed in ${seconds}s `;
  const pad = Math.max(0, 80 - summary.length);
  const rule = `${'='.repeat(Math.floor(pad / 2))}${summary}${'='.repeat(Math.ceil(pad / 2))}`;
  const lines = [
    '============================= test session starts ==============================',
    'platform linux -- Python 3.11.6, pytest-8.0.0, pluggy-1.4.0',
    'rootdir: /workspace/calc',
    `collected ${failed + passed} items`,
    '',
    `tests/test_calc.py ${progress}${' '.repeat(Math.max(1, 53 - progress.length))}[100%]`,
    '',
  ];
  if (failed > 0) {
    lines.push('=================================== FAILURES ===================================');
    for (const name of failing) {
      lines.push(`${'_'.repeat(32)} ${name} ${'_'.repeat(Math.max(3, 45 - name.length))}`, '', `    def ${name}():`, '>       assert divide(1, 0) is None', 'E       ZeroDivisionError: division by zero', '', 'tests/test_calc.py:18: ZeroDivisionError');
    }
    lines.push('=========================== short test summary info ============================');
    for (const name of failing) lines.push(`FAILED tests/test_calc.py::${name} - ZeroDivisionError: division by zero`);
  }
  lines.push(rule);
  return lines.join('\n');
}

function goTestOutput(seconds: string, pkgSeconds: string): string {
  return [
    '--- FAIL: TestParseDuration (' + seconds + 's)',
    '    parse_test.go:42: ParseDuration("1h30m") = 1h0m0s, want 1h30m0s',
    'FAIL',
    `FAIL\tgithub.com/acme/timeparse\t${pkgSeconds}s`,
    'FAIL',
  ].join('\n');
}

function esHit(id: string, score: number, title: string): Record<string, unknown> {
  return { _index: 'kb-articles', _id: id, _score: score, _source: { title, '@timestamp': '2025-06-03T09:12:44Z', body: `${title}: see the policy section for details.` } };
}

function esResponse(took: number, hits: Array<Record<string, unknown>>): Record<string, unknown> {
  return {
    took,
    timed_out: false,
    _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
    hits: { total: { value: hits.length, relation: 'eq' }, max_score: hits.length > 0 ? hits[0]!._score : null, hits },
  };
}

/** str_replace_editor's answer (OpenHands' wording) to an old_str that is not in the file: nothing was written. */
const notAppliedEdit = (ts: number, oldText: string, newText: string): ScenarioCall => ({
  ...edit(ts, oldText, newText),
  result: `ERROR:\nNo replacement was performed, old_str \`${oldText}\` did not appear verbatim in /workspace/calc/calc.py.`,
});

function badCredentials(requestId: string): ScenarioCall['error'] {
  return { type: 'HttpError', status: 401, message: `Bad credentials - https://docs.github.com/rest (x-github-request-id: ${requestId})` };
}

const bash = (command: string, result: string | undefined, ts: number, error?: ScenarioCall['error']): ScenarioCall =>
  error === undefined ? { tool: 'bash', args: { command }, result, ts } : { tool: 'bash', args: { command }, error, ts };

const edit = (ts: number, oldText: string, newText: string): ScenarioCall => ({
  tool: 'str_replace_editor',
  args: { command: 'str_replace', path: '/workspace/calc/calc.py', old_str: oldText, new_str: newText },
  result: 'The file /workspace/calc/calc.py has been edited.',
  ts,
});


/** `gh run view` (gh 2.x) while the run is in progress, and once it has finished. */
function ghRunView(status: 'in_progress' | 'success', minutesAgo: number): string {
  const ago = minutesAgo <= 1 ? 'about 1 minute ago' : `about ${minutesAgo} minutes ago`;
  if (status === 'in_progress') {
    return ['', '* main CI · 123', `Triggered via push ${ago}`, '', 'JOBS', '* build (ID 456)', '  ✓ Set up job', '  ✓ Run actions/checkout@v4', '  ✓ Run actions/setup-node@v4', '  * Run npm test', '', 'For more information about a job, try: gh run view --job=<job-id>', 'View this run on GitHub: https://github.com/acme/api/actions/runs/123'].join('\n');
  }
  return ['', '✓ main CI · 123', `Triggered via push ${ago}`, '', 'JOBS', '✓ build in 4m12s (ID 456)', '', 'For more information about the job, try: gh run view --job=456', 'View this run on GitHub: https://github.com/acme/api/actions/runs/123'].join('\n');
}

/** `kubectl get pods` with the api pod crash-looping: only RESTARTS and AGE move. */
function kubectlGetPods(elapsedSeconds: number): string {
  const age = (s: number): string => (s >= 60 ? `${Math.floor(s / 60)}m${s % 60 > 0 ? `${s % 60}s` : ''}` : `${s}s`);
  const restarts = 3 + Math.floor(elapsedSeconds / 300);
  return [
    'NAME                        READY   STATUS             RESTARTS        AGE',
    `api-7d9f8b6c5d-x2k4q        0/1     CrashLoopBackOff   ${`${restarts} (${age(30 + (elapsedSeconds % 300))} ago)`.padEnd(15)} ${age(240 + elapsedSeconds)}`,
    `postgres-0                  1/1     Running            0               ${age(3 * 3600 + elapsedSeconds)}`,
  ].join('\n');
}

/**
 * `docker ps` (Docker 27) for a database container: STATUS and CREATED are ages that tick on
 * every look; the health check decides the rest.
 */
function dockerPs(minutes: number, health: 'starting' | 'healthy'): string {
  const up = minutes < 1 ? 'Less than a second' : minutes === 1 ? 'About a minute' : `${minutes} minutes`;
  return [
    'CONTAINER ID   IMAGE         COMMAND                  CREATED              STATUS                              PORTS      NAMES',
    `3f2a1b9c8d7e   postgres:16   "docker-entrypoint.s…"   ${`${Math.max(1, minutes)} minutes ago`.padEnd(20)} ${`Up ${up} (health: ${health})`.padEnd(35)} 5432/tcp   db`,
  ].join('\n');
}

/** A service's health endpoint as JSON text: the state, and an uptime and check time that tick between looks. */
function healthCheck(uptimeSeconds: number, status: 'degraded' | 'ok'): string {
  return JSON.stringify({ status, checks: { db: status === 'ok' ? 'up' : 'down', cache: 'up' }, version: '2.14.1', uptime_seconds: uptimeSeconds, checked_at: new Date(T0 + uptimeSeconds * 1000).toISOString() });
}

/** `curl -sI` as it prints an HTTP/2 response: the Date header is the server's clock at `ts`. */
function httpHead(status: number, ts: number): string {
  return `HTTP/2 ${status}\ndate: ${new Date(ts).toUTCString()}\ncontent-type: application/json\ncontent-length: ${status === 200 ? 61 : 19}\n${status === 200 ? '' : 'retry-after: 30\n'}`;
}

/** The same head through Cloudflare in front of CloudFront: per-response ids, a cache age, a server timing, the rate limit left. */
function httpHeadBehindCdn(status: number, ts: number, look: number): string {
  const ray = (0x8f2a1c3b4d5e6f70n + BigInt(look) * 0x1d3b5n).toString(16);
  return `${httpHead(status, ts)}cf-ray: ${ray}-IAD\nx-amz-cf-id: ${Buffer.from(ray).toString('base64')}==\nage: ${(look * 7) % 60}\n` +
    `server-timing: app;dur=${(12.5 + look * 3.1).toFixed(1)}\nx-ratelimit-remaining: ${4999 - look}\ntraceparent: 00-${ray}${ray}-00f067aa0ba902b7-01\n`;
}

/**
 * One page of a ticket search a tool runs on Elasticsearch (`from`, `size` 10) over `total` hits, as
 * such tools hand it on: the total, the search's own clock, the page's hits (none past the last).
 */
function esPage(total: number, from: number, took: number, term = 'refund'): unknown {
  const hits = Array.from({ length: Math.max(0, Math.min(10, total - from)) }, (_, k) => ({ id: `${term}-${from + k}`, score: 2.1 - (from + k) / 100, subject: `${term} request #${from + k}` }));
  return { total, took, hits };
}

/** A page of Jira's search (`/rest/api/2/search`): the issues from `startAt`, up to 50, of `total`. */
function jiraPage(total: number, startAt: number, project = 'OPS'): unknown {
  const count = Math.max(0, Math.min(50, total - startAt));
  return { expand: 'schema,names', startAt, maxResults: 50, total, issues: Array.from({ length: count }, (_, i) => ({ id: String(10_000 + startAt + i), key: `${project}-${startAt + i + 1}`, fields: { summary: `Issue ${startAt + i + 1}`, status: { name: 'Open' } } })) };
}

/** `systemctl status` of a unit: its state and age, its usage so far, its last log lines. */
function systemdStatus(age: string, state: string, look: number): string {
  const failing = state.startsWith('activating');
  return `● api.service - API server\n     Loaded: loaded (/etc/systemd/system/api.service; enabled; preset: enabled)\n     Active: ${state} since Mon 2026-12-07 16:01:02 UTC; ${age} ago\n` +
    `   Main PID: 4242 (code=exited, status=${failing ? 1 : 0})\n     Memory: ${(12.3 + look / 10).toFixed(1)}M\n        CPU: ${120 + look * 3}ms\n\n` +
    `Dec 07 16:01:02 web-1 api[4242]: ${failing ? 'Error: listen EADDRINUSE: address already in use :::8080' : 'Listening on :8083'}`;
}

/**
 * `curl` without `-s` under an agent's shell: its progress meter on stderr (the agent sees both
 * streams), whose speeds and clocks differ on every request, and the body. `look` moves them.
 */
function curlWithMeter(look: number, body: string): string {
  const size = body.length;
  const speed = 1000 + ((look * 7919) % 4000);
  return `  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n` +
    `\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0\r100   ${size}  100   ${size}    0     0   ${speed}      0 --:--:-- --:--:-- --:--:--  ${speed + 23}\n${body}`;
}

/** `docker build` with BuildKit's plain progress (not a terminal): each RUN line led by its seconds, the failed step's excerpt too. */
function dockerBuild(look: number, failure: string | undefined): string {
  const at = (k: number) => (0.2 + ((look * 37 + k * 101) % 900) / 1000).toFixed(3);
  const run = failure === undefined ? ['added 212 packages in 3s'] : ['npm error code ERESOLVE', `npm error ${failure}`];
  const lines = run.map((line, k) => `#9 ${at(k)} ${line}`).join('\n');
  const head = `#0 building with "default" instance using docker driver\n\n#1 [internal] load build definition from Dockerfile\n#1 transferring dockerfile: 312B done\n#1 DONE 0.0s\n\n#9 [4/6] RUN npm ci\n${lines}\n`;
  if (failure === undefined) return `${head}#9 DONE ${(3 + look / 10).toFixed(1)}s\n\n#12 exporting to image\n#12 naming to docker.io/library/shop:dev done\n#12 DONE 0.${look % 10}s`;
  const excerpt = run.map((line, k) => `${at(k)} ${line}`).join('\n');
  return `${head}#9 ERROR: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1\n------\n > [4/6] RUN npm ci:\n${excerpt}\n------\n` +
    'Dockerfile:7\n--------------------\n   6 |     COPY package*.json ./\n   7 | >>> RUN npm ci\n--------------------\nERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1';
}

/** `dotnet build` (MSBuild's summary and its `Time Elapsed`). */
function dotnetBuild(look: number, error: string | undefined): string {
  const elapsed = `00:00:0${2 + (look % 7)}.${String(10 + ((look * 13) % 89)).padStart(2, '0')}`;
  const body = error === undefined ? 'Build succeeded.\n    0 Warning(s)\n    0 Error(s)' : `/src/Shop/Program.cs(12,17): error ${error} [/src/Shop/Shop.csproj]\n\nBuild FAILED.\n\n    0 Warning(s)\n    1 Error(s)`;
  return `  Determining projects to restore...\n  All projects are up-to-date for restore.\n${body}\n\nTime Elapsed ${elapsed}`;
}

/** jest's output under Node 21+, behind Node's punycode deprecation warning and its process id. */
function jestWithNodeWarning(pid: number, failed: number, seconds: number): string {
  const warning = `(node:${pid}) [DEP0040] DeprecationWarning: The \`punycode\` module is deprecated. Please use a userland alternative instead.\n(Use \`node --trace-deprecation ...\` to show where the warning was created)`;
  const summary = failed > 0 ? `Tests:       ${failed} failed, ${3 - failed} passed, 3 total` : 'Tests:       3 passed, 3 total';
  return `${warning}\n${failed > 0 ? 'FAIL' : 'PASS'} src/date.test.ts\n${summary}\nTime:        ${seconds.toFixed(3)} s\nRan all test suites matching /src\\/date.test.ts/i.\n`;
}

/** An evaluation script's output: tqdm's bar (elapsed, rate) over 50 batches, then the metric. */
function tqdmRun(seconds: number, rate: number, accuracy: string): string {
  return `Loading checkpoint from runs/latest/model.pt\nEvaluating: 100%|██████████| 50/50 [00:${String(seconds).padStart(2, '0')}<00:00, ${rate.toFixed(2)}it/s]\naccuracy: ${accuracy}\n`;
}

/** GitHub REST's answer to "create an issue" (the fields an agent sees), for issue `number`. */
/**
 * An OpenHands `execute_ipython_cell` answer: IPython 8's traceback, whose `Cell In[n]` is the
 * kernel's execution count (one higher on every run), and the footer OpenHands adds.
 */
function ipythonCellOutput(executionCount: number, body: string): string {
  return `${body.replace('{cell}', `Cell In[${executionCount}], line 1`)}\n[Jupyter current working directory: /workspace]\n[Jupyter Python interpreter: /openhands/poetry/openhands-ai-5O4_aCHf-py3.12/bin/python]`;
}

const GROUPBY_KEY_ERROR =
  "---------------------------------------------------------------------------\nKeyError                                  Traceback (most recent call last)\n{cell}\n----> 1 df.groupby('Region')['revenue'].sum()\n\nFile /usr/local/lib/python3.12/site-packages/pandas/core/frame.py:9183, in DataFrame.groupby(self, by, axis, level, as_index, sort, group_keys, observed, dropna)\n-> 9183 return DataFrameGroupBy(\n\nKeyError: 'Region'";

const ipythonCell = (code: string, executionCount: number, body: string, ts: number): ScenarioCall => ({ tool: 'execute_ipython_cell', args: { code }, result: ipythonCellOutput(executionCount, body), ts });

/** gemini-cli's `run_shell_command` answer (its llmContent), for a test run with `failed` failing tests. */
function geminiShellAnswer(command: string, failed: number, pgid: number): string {
  const stdout = failed > 0 ? `FAIL src/date.test.ts\nTests:       ${failed} failed, ${3 - failed} passed, 3 total` : 'PASS src/date.test.ts\nTests:       3 passed, 3 total';
  return `Command: ${command}\nDirectory: (root)\nStdout: ${stdout}\nStderr: (empty)\nError: (none)\nExit Code: ${failed > 0 ? 1 : 0}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: ${pgid}`;
}

/** A web search tool's page of five hits, numbered across pages. */
function webSearchPage(page: number): string {
  return Array.from({ length: 5 }, (_, k) => `${page * 5 + k + 1}. ${['Detecting', 'Stopping', 'Measuring', 'Tracing', 'Bounding'][k]} agent loops, part ${page + 1} — https://example.com/loops/${page}/${k}`).join('\n');
}

/**
 * `cargo test` (libtest) for four tests with these statuses, their lines in the order the test
 * threads finished: rotated by `run`, as two runs of an unchanged suite may print them.
 */
function cargoTestOutput(run: number, statuses: string[]): string {
  const names = ['tests::parses', 'tests::adds', 'tests::formats', 'tests::rounds'];
  const lines = names.map((name, k) => `test ${name} ... ${statuses[k]}`);
  const order = lines.map((_, k) => lines[(k + run) % lines.length]!);
  const failed = names.filter((_, k) => statuses[k] === 'FAILED');
  const summary = `test result: ${failed.length > 0 ? 'FAILED' : 'ok'}. ${names.length - failed.length} passed; ${failed.length} failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.0${run % 10}s`;
  const failures = failed.length > 0 ? ['', 'failures:', '', ...failed.map((name) => `---- ${name} stdout ----\nthread '${name}' panicked at src/lib.rs:42:9:\nassertion \`left == right\` failed`), '', 'failures:', ...failed.map((name) => `    ${name}`)] : [];
  return [`    Finished \`test\` profile [unoptimized + debuginfo] target(s) in 0.${50 + run}s`, '     Running unittests src/lib.rs (target/debug/deps/calc-3f2a1b9c8d7e)', '', `running ${names.length} tests`, ...order, ...failures, '', summary, ''].join('\n');
}

function githubIssue(number: number, title: string): Record<string, unknown> {
  return {
    id: 2_900_000_000 + number * 17,
    node_id: `I_kwDOAbCd${number.toString(36)}`,
    number,
    title,
    state: 'open',
    url: `https://api.github.com/repos/acme/api/issues/${number}`,
    html_url: `https://github.com/acme/api/issues/${number}`,
    user: { login: 'triage-bot', id: 41898282 },
    labels: [],
    comments: 0,
    created_at: `2026-12-01T10:${String(number % 60).padStart(2, '0')}:00Z`,
    updated_at: `2026-12-01T10:${String(number % 60).padStart(2, '0')}:00Z`,
  };
}

/** Ten `create_issue` calls, the i-th titled `titleOf(i)`, each answered with a new issue. */
function createIssueCalls(titleOf: (i: number) => string): ScenarioCall[] {
  return Array.from({ length: 10 }, (_, i) => ({
    tool: 'create_issue',
    args: { owner: 'acme', repo: 'api', title: titleOf(i), body: 'Seen on /login after the last deploy.' },
    result: githubIssue(1347 + i, titleOf(i)),
    ts: T0 + i * 4_000,
  }));
}

/** `count` looks at GitHub workflow run `runId`, one every `everyMs`, the i-th answering `statusOf(i)`. */
function workflowRunCalls(runId: number, count: number, everyMs: number, statusOf: (i: number) => string): ScenarioCall[] {
  return Array.from({ length: count }, (_, i) => ({
    tool: 'get_workflow_run',
    args: { owner: 'acme', repo: 'api', run_id: runId },
    result: { id: runId, name: 'CI', head_branch: 'main', status: statusOf(i), conclusion: statusOf(i) === 'completed' ? 'success' : null },
    ts: T0 + i * everyMs,
  }));
}

/** loopguard's default deadline for a shell poll (`shellPollDeadlineMs`). */
const SHELL_POLL_DEADLINE_MS = 600_000;
const KUBECTL_POLL_EVERY_MS = 25_000;
/** `kubectl rollout status --timeout=60s` returns after its timeout, plus the agent's turn. */
const ROLLOUT_WAIT_MS = 62_000;

/** kubectl's rollout status text: waiting (then its timeout error), or rolled out once 3 of 3 are available. */
function rolloutStatus(available: number): string {
  if (available >= 3) return 'Waiting for deployment "api" rollout to finish: 2 of 3 updated replicas are available...\ndeployment "api" successfully rolled out\n';
  return `Waiting for deployment "api" rollout to finish: ${available} of 3 updated replicas are available...\nerror: timed out waiting for the condition\n`;
}

/** A Notion `search` response (object: list), as its API reference documents it. */
function notionList(titles: string[], nextCursor: string | null): Record<string, unknown> {
  return {
    object: 'list',
    results: titles.map((title, i) => ({ object: 'page', id: `9b4f${title.length.toString(16)}a2-${i}c1e-4d7a-8f3b-2e6d0c${i}a5b91f`, properties: { title: { title: [{ plain_text: title }] } } })),
    next_cursor: nextCursor,
    has_more: nextCursor !== null,
    type: 'page_or_database',
  };
}


/** A Python module of `count` lines, as a repository file would read (issue 24 #6 scenarios). */
function pythonModuleLines(count: number): string[] {
  const lines: string[] = ['"""Field normalisation for imported billing records."""', 'from __future__ import annotations', ''];
  for (let k = 1; lines.length < count; k++) {
    lines.push(`def normalise_field_${k}(record):`, `    """Return field ${k} of the record, stripped."""`, `    value = record.get("field_${k}")`, '    if value is None:', '        return None', '    return str(value).strip()', '');
  }
  return lines.slice(0, count);
}

/** `cat -n` / str_replace_editor `view`: the number right-aligned in six columns, then a tab. */
function catN(lines: readonly string[], from: number, to: number): string {
  return lines.slice(from - 1, to).map((line, i) => `${String(from + i).padStart(6)}\t${line}`).join('\n');
}

/** Claude Code's Read: the same columns with an arrow (→) between number and line. */
function claudeRead(lines: readonly string[], from: number, to: number): string {
  return lines.slice(from - 1, to).map((line, i) => `${String(from + i).padStart(6)}→${line}`).join('\n');
}

/** SWE-agent 0.x's file viewer: header, lines above, `N:line`, lines below. */
function sweAgentWindow(path: string, lines: readonly string[], from: number, to: number): string {
  const last = Math.min(to, lines.length);
  const out = [`[File: ${path} (${lines.length} lines total)]`];
  if (from > 1) out.push(`(${from - 1} more lines above)`);
  for (let n = from; n <= last; n++) out.push(`${n}:${lines[n - 1]}`);
  if (last < lines.length) out.push(`(${lines.length - last} more lines below)`);
  return out.join('\n');
}

const INVOICE_PY = pythonModuleLines(180);
const PARSER_PY = pythonModuleLines(412);
const LEDGER_PY = pythonModuleLines(900);

const PYTEST = 'python -m pytest tests/test_calc.py';
const seconds = ['0.05', '0.06', '0.04', '0.09', '0.05', '0.07', '0.11', '0.05'];

export const NOISE_SCENARIOS: readonly NoiseScenario[] = [
  // 1. Volatile numbers in results.
  {
    name: 'pytest-rerun-without-edit',
    noiseClass: 'durations in results (pytest)',
    label: 'looping',
    loopStart: 0,
    calls: seconds.map((s, i) => bash(PYTEST, pytestOutput(1, 4, s, ['test_divide']), T0 + i * 20_000)),
  },
  {
    name: 'pytest-rerun-after-each-edit',
    noiseClass: 'durations in results (pytest)',
    label: 'healthy',
    calls: [
      bash(PYTEST, pytestOutput(2, 3, '0.05', ['test_divide', 'test_modulo']), T0),
      edit(T0 + 20_000, 'return a / b', 'return None if b == 0 else a / b'),
      bash(PYTEST, pytestOutput(1, 4, '0.06', ['test_modulo']), T0 + 40_000),
      edit(T0 + 60_000, 'return a % b', 'return None if b == 0 else a % b'),
      bash(PYTEST, pytestOutput(0, 5, '0.04', []), T0 + 80_000),
    ],
  },
  {
    name: 'go-test-rerun-without-edit',
    noiseClass: 'durations in results (go test)',
    label: 'looping',
    loopStart: 0,
    calls: ['0.00', '0.01', '0.00', '0.00', '0.01', '0.00', '0.00'].map((s, i) => bash('go test ./...', goTestOutput(s, `0.00${3 + (i % 4)}`), T0 + i * 15_000)),
  },
  // dotnet build re-run with no edit: only MSBuild's Time Elapsed moves.
  {
    name: 'dotnet-build-rerun-without-edit',
    noiseClass: 'durations in results (MSBuild)',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 8 }, (_, i) => bash('dotnet build', dotnetBuild(i, "CS0103: The name 'conf' does not exist in the current context"), T0 + i * 20_000)),
  },
  {
    name: 'dotnet-build-after-each-edit',
    noiseClass: 'durations in results (MSBuild)',
    label: 'healthy',
    calls: [1, 2, 3].flatMap((attempt) => [
      { tool: 'str_replace_editor', args: { command: 'str_replace', path: '/src/Shop/Program.cs', old_str: `conf${attempt - 1}`, new_str: `conf${attempt}` }, result: 'The file /src/Shop/Program.cs has been edited.', ts: T0 + attempt * 60_000 },
      bash('dotnet build', dotnetBuild(attempt, attempt < 3 ? `CS0103: The name 'conf${attempt}' does not exist in the current context` : undefined), T0 + attempt * 60_000 + 5_000),
    ]),
  },
  {
    name: 'es-search-reworded-same-hits',
    noiseClass: 'relevance scores and took in results (Elasticsearch)',
    label: 'looping',
    loopStart: 0,
    calls: ['refund policy', 'refund rules', 'how do refunds work', 'refund policy details', 'returns and refunds', 'refund eligibility', 'refund policy 2025', 'refund terms'].map((query, i) => ({
      tool: 'search_kb',
      args: { query },
      result: esResponse(3 + (i % 5), [esHit('kb-17', 2.41 + i * 0.013, 'Refund policy'), esHit('kb-42', 1.87 - i * 0.007, 'Returns FAQ')]),
      ts: T0 + i * 8_000,
    })),
  },
  {
    name: 'es-search-new-hits-each-query',
    noiseClass: 'relevance scores and took in results (Elasticsearch)',
    label: 'healthy',
    calls: ['refund policy', 'shipping times', 'warranty claims', 'gift cards', 'store locations', 'loyalty points', 'price matching'].map((query, i) => ({
      tool: 'search_kb',
      args: { query },
      result: esResponse(3 + (i % 5), [esHit(`kb-${100 + i}`, 2.41 + i * 0.013, `Article on ${query}`), esHit('kb-42', 1.1, 'Returns FAQ'), { ...esHit(`kb-${200 + i}`, 0.9, `More on ${query}`) }]),
      ts: T0 + i * 8_000,
    })),
  },
  // 7. Noise in arguments: a nonce and the call's own clock stamp.
  {
    name: 'invoice-read-with-nonce-and-stamp',
    noiseClass: 'nonces and clock stamps in arguments',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 8 }, (_, i) => ({
      tool: 'get_invoice',
      args: { invoice: 'INV-2041', nonce: `n-8f3a${(i * 7919).toString(16)}`, timestamp: T0 + i * 5_000 },
      result: { invoice: 'INV-2041', status: 'open', amount_due: 1250, currency: 'EUR' },
      ts: T0 + i * 5_000,
    })),
  },
  {
    name: 'invoice-reads-of-different-invoices',
    noiseClass: 'nonces and clock stamps in arguments',
    label: 'healthy',
    calls: Array.from({ length: 8 }, (_, i) => ({
      tool: 'get_invoice',
      args: { invoice: `INV-${2041 + i}`, nonce: `n-8f3a${(i * 7919).toString(16)}`, timestamp: T0 + i * 5_000 },
      result: { invoice: `INV-${2041 + i}`, status: i % 2 === 0 ? 'open' : 'paid', amount_due: 1250 + i * 10, currency: 'EUR' },
      ts: T0 + i * 5_000,
    })),
  },
  {
    name: 'events-since-a-moving-time',
    noiseClass: 'nonces and clock stamps in arguments',
    label: 'healthy',
    // `since` selects data even though it tracks the clock: each call asks about a new window.
    calls: Array.from({ length: 7 }, (_, i) => ({
      tool: 'list_events',
      args: { since: new Date(T0 + i * 60_000 - 60_000).toISOString() },
      result: { events: [{ id: `evt-${i}`, type: 'deploy', at: new Date(T0 + i * 60_000 - 30_000).toISOString() }] },
      ts: T0 + i * 60_000,
    })),
  },
  // Issue 18 #5: bookkeeping arguments (Cline's task_progress).
  {
    name: 'cline-task-progress-same-command',
    noiseClass: 'bookkeeping arguments (Cline task_progress)',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 7 }, (_, i) => ({
      tool: 'execute_command',
      args: { command: 'ls -la src', requires_approval: false, task_progress: `- [x] Read the issue\n- [${i > 2 ? 'x' : ' '}] Find the parser\n- [ ] Fix it (step ${i + 1})` },
      result: 'total 24\ndrwxr-xr-x 2 dev dev 4096 Jun  3 09:12 .\ndrwxr-xr-x 6 dev dev 4096 Jun  3 09:12 ..\n-rw-r--r-- 1 dev dev 2211 Jun  3 09:12 index.ts\n-rw-r--r-- 1 dev dev 5120 Jun  3 09:12 parser.ts',
      ts: T0 + i * 6_000,
    })),
  },
  {
    name: 'cline-task-progress-different-commands',
    noiseClass: 'bookkeeping arguments (Cline task_progress)',
    label: 'healthy',
    calls: ['ls -la src', 'cat src/parser.ts', 'grep -n parseDuration -r src', 'git log --oneline -5', 'git status --short'].map((command, i) => ({
      tool: 'execute_command',
      args: { command, requires_approval: false, task_progress: `- [x] Read the issue\n- [ ] Step ${i + 1}` },
      result: `output of ${command}`,
      ts: T0 + i * 6_000,
    })),
  },
  // gemini-cli's shell tool: a `description` written anew on every call, and the harness's process group id.
  {
    name: 'gemini-cli-same-test-under-new-descriptions',
    noiseClass: 'labels in arguments (shell descriptions)',
    label: 'looping',
    loopStart: 0,
    calls: ['Run the tests', 'Run the tests again to check', 'Re-run the test suite', 'Check whether the tests pass now', 'Run tests once more', 'Verify the fix with the tests', 'Run the test suite again'].map((description, i) => ({
      tool: 'run_shell_command',
      args: { command: 'npm test', description },
      result: geminiShellAnswer('npm test', 1, 42_546 + i * 13),
      ts: T0 + i * 9_000,
    })),
  },
  {
    name: 'gemini-cli-test-after-each-edit',
    noiseClass: 'labels in arguments (shell descriptions)',
    label: 'healthy',
    calls: [2, 1, 0].flatMap((failed, attempt) => [
      { tool: 'replace', args: { file_path: '/repo/src/date.ts', old_string: `parse${attempt}(`, new_string: `parse${attempt + 1}(` }, result: 'Successfully modified file: /repo/src/date.ts (1 replacements).', ts: T0 + attempt * 30_000 },
      { tool: 'run_shell_command', args: { command: 'npm test', description: `Run the tests (attempt ${attempt + 1})` }, result: geminiShellAnswer('npm test', failed, 43_000 + attempt), ts: T0 + attempt * 30_000 + 8_000 },
    ]),
  },
  // 3. The same failure across tools; failures that teach.
  {
    name: 'expired-token-across-github-tools',
    noiseClass: 'the same failure across tools (401)',
    label: 'looping',
    loopStart: 0,
    calls: [
      ['list_issues', { owner: 'acme', repo: 'api', state: 'open' }],
      ['get_issue', { owner: 'acme', repo: 'api', issue_number: 812 }],
      ['search_code', { q: 'parseDuration repo:acme/api' }],
      ['list_pull_requests', { owner: 'acme', repo: 'api' }],
      ['get_issue', { owner: 'acme', repo: 'api', issue_number: 790 }],
      ['list_commits', { owner: 'acme', repo: 'api' }],
      ['search_issues', { q: 'timeout repo:acme/api' }],
      ['get_file_contents', { owner: 'acme', repo: 'api', path: 'README.md' }],
    ].map(([tool, args], i) => ({ tool: tool as string, args: args as Record<string, unknown>, error: badCredentials(`C6E8:${(0x3a0b + i * 97).toString(16).toUpperCase()}:1B2C3D:1C4D5E:6718A9F${i}`), ts: T0 + i * 3_000 })),
  },
  {
    name: 'customer-service-narrowing-down',
    noiseClass: 'the same failure across tools (401)',
    label: 'healthy',
    calls: [
      { tool: 'find_user_id_by_email', args: { email: 'mei.kovacs@example.com' }, error: { type: 'Error', message: 'Error: user not found' }, ts: T0 },
      { tool: 'find_user_id_by_email', args: { email: 'mei.kovacs28@example.com' }, error: { type: 'Error', message: 'Error: user not found' }, ts: T0 + 4_000 },
      { tool: 'find_user_id_by_name_zip', args: { first_name: 'Mei', last_name: 'Kovacs', zip: '28236' }, error: { type: 'Error', message: 'Error: user not found' }, ts: T0 + 8_000 },
      { tool: 'find_user_id_by_email', args: { email: 'mei.kovacs@gmail.com' }, error: { type: 'Error', message: 'Error: user not found' }, ts: T0 + 12_000 },
      { tool: 'find_user_id_by_name_zip', args: { first_name: 'Mei', last_name: 'Kovacs', zip: '28263' }, error: { type: 'Error', message: 'Error: user not found' }, ts: T0 + 16_000 },
      { tool: 'find_user_id_by_email', args: { email: 'mei_kovacs@example.com' }, error: { type: 'Error', message: 'Error: user not found' }, ts: T0 + 20_000 },
      { tool: 'find_user_id_by_name_zip', args: { first_name: 'Mei', last_name: 'Kovács', zip: '28236' }, result: 'mei_kovacs_8020', ts: T0 + 24_000 },
      { tool: 'get_user_details', args: { user_id: 'mei_kovacs_8020' }, result: { user_id: 'mei_kovacs_8020', name: { first_name: 'Mei', last_name: 'Kovács' }, orders: ['#W6390527'] }, ts: T0 + 28_000 },
    ],
  },
  // A failure handed back as the tool's content (a chat transcript's tool message), as document
  // 003's retry: a 503 four times, then success. The looping twin keeps getting the same 503.
  {
    name: 'retry-after-503-reported-in-the-result',
    noiseClass: 'failures reported as content (503)',
    label: 'healthy',
    calls: [
      ...[0, 1, 2, 3].map((i) => ({ tool: 'get_invoice', args: { invoice_id: 'INV-7' }, result: 'Error: 503 Service Unavailable (billing upstream)', ts: T0 + i * 2_000 * 2 ** i })),
      { tool: 'get_invoice', args: { invoice_id: 'INV-7' }, result: { invoice_id: 'INV-7', status: 'paid', total: 129.5 }, ts: T0 + 60_000 },
    ],
  },
  {
    name: 'same-503-reported-in-the-result-past-the-budget',
    noiseClass: 'failures reported as content (503)',
    label: 'looping',
    // Honest up to the retry budget (5): the loop is the retrying past it.
    loopStart: 5,
    calls: Array.from({ length: 12 }, (_, i) => ({ tool: 'get_invoice', args: { invoice_id: 'INV-7' }, result: { error: { code: 503, message: 'Service Unavailable' } }, ts: T0 + i * 3_000 })),
  },
  {
    name: 'openhands-same-command-failing-differently',
    noiseClass: 'the identical call failing (OpenHands)',
    label: 'looping',
    loopStart: 0,
    calls: [
      'ModuleNotFoundError: No module named \'timeparse\'',
      'ImportError: cannot import name \'parse\' from partially initialized module \'timeparse\'',
      'ModuleNotFoundError: No module named \'timeparse._native\'',
      'ImportError: libtimeparse.so: cannot open shared object file: No such file or directory',
      'ModuleNotFoundError: No module named \'timeparse\'',
      'ImportError: cannot import name \'parse\' from \'timeparse\'',
    ].map((message, i) => bash('python reproduce.py', undefined, T0 + i * 10_000, { type: 'CommandError', message: `Traceback (most recent call last):\n  File "/workspace/reproduce.py", line 1, in <module>\n${message}\n[exit code 1]` })),
  },
  {
    name: 'failing-script-fixed-between-runs',
    noiseClass: 'the identical call failing (OpenHands)',
    label: 'healthy',
    calls: [
      bash('python reproduce.py', undefined, T0, { type: 'CommandError', message: 'ModuleNotFoundError: No module named \'timeparse\'\n[exit code 1]' }),
      edit(T0 + 10_000, 'import timeparse', 'import src.timeparse as timeparse'),
      bash('python reproduce.py', undefined, T0 + 20_000, { type: 'CommandError', message: 'AttributeError: module \'src.timeparse\' has no attribute \'parse\'\n[exit code 1]' }),
      edit(T0 + 30_000, 'timeparse.parse(', 'timeparse.parse_duration('),
      bash('python reproduce.py', undefined, T0 + 40_000, { type: 'CommandError', message: 'AssertionError: 3600 != 5400\n[exit code 1]' }),
      edit(T0 + 50_000, 'hours * 3600', 'hours * 3600 + minutes * 60'),
      bash('python reproduce.py', 'OK: 1h30m = 5400s', T0 + 60_000),
    ],
  },
  // An edit the editor did not apply is no change (str_replace_editor's answer when old_str is not
  // in the file): the same test run after it is a repeat, not a re-run after an edit.
  {
    name: 'edits-not-applied-between-the-same-test',
    noiseClass: 'the identical call failing (OpenHands)',
    label: 'looping',
    loopStart: 1,
    calls: Array.from({ length: 8 }, (_, k) => [
      notAppliedEdit(T0 + k * 20_000, `    return hours * ${3600 + (k % 3)}`, '    return hours * 3600 + minutes * 60'),
      bash('python reproduce.py', 'AssertionError: 3600 != 5400', T0 + k * 20_000 + 10_000),
    ]).flat(),
  },
  {
    name: 'edit-not-applied-then-applied',
    noiseClass: 'the identical call failing (OpenHands)',
    label: 'healthy',
    calls: [
      bash('python reproduce.py', 'AssertionError: 3600 != 5400', T0),
      notAppliedEdit(T0 + 10_000, '    return hours*3600', '    return hours * 3600 + minutes * 60'),
      notAppliedEdit(T0 + 20_000, '  return hours * 3600', '    return hours * 3600 + minutes * 60'),
      edit(T0 + 30_000, '    return hours * 3600', '    return hours * 3600 + minutes * 60'),
      bash('python reproduce.py', 'OK: 1h30m = 5400s', T0 + 40_000),
    ],
  },
  // 6. Window re-reads: a file read whole, then again in windows it already showed.
  {
    name: 'claude-code-read-whole-then-windows',
    noiseClass: 'window re-reads',
    label: 'looping',
    loopStart: 0,
    calls: [
      { tool: 'Read', args: { file_path: '/repo/billing/invoice.py' }, result: claudeRead(INVOICE_PY, 1, 180), ts: T0 },
      ...[[40, 30], [1, 50], [100, 40], [60, 60], [150, 31], [20, 20], [120, 30]].map(([offset, limit], i) => ({
        tool: 'Read',
        args: { file_path: '/repo/billing/invoice.py', offset: offset!, limit: limit! },
        result: claudeRead(INVOICE_PY, offset!, offset! + limit! - 1),
        ts: T0 + (i + 1) * 6_000,
      })),
    ],
  },
  {
    name: 'claude-code-read-long-file-in-windows',
    noiseClass: 'window re-reads',
    label: 'healthy',
    calls: [
      ...[1, 201, 401, 601, 801].map((offset, i) => ({ tool: 'Read', args: { file_path: '/repo/billing/ledger.py', offset, limit: 200 }, result: claudeRead(LEDGER_PY, offset, offset + 199), ts: T0 + i * 6_000 })),
      { tool: 'Edit', args: { file_path: '/repo/billing/ledger.py', old_string: '    return str(value).strip()', new_string: '    return str(value).strip() or None' }, result: 'The file /repo/billing/ledger.py has been updated.', ts: T0 + 30_000 },
      // After the edit the file may read differently: a window already shown is news again.
      { tool: 'Read', args: { file_path: '/repo/billing/ledger.py', offset: 201, limit: 40 }, result: claudeRead(LEDGER_PY, 201, 240), ts: T0 + 36_000 },
    ],
  },
  {
    name: 'openhands-view-then-view-ranges',
    noiseClass: 'window re-reads',
    label: 'looping',
    loopStart: 0,
    calls: [
      { tool: 'str_replace_editor', args: { command: 'view', path: '/workspace/billing/invoice.py' }, result: `Here's the result of running \`cat -n\` on /workspace/billing/invoice.py:\n${catN(INVOICE_PY, 1, 180)}\n`, ts: T0 },
      ...[[30, 60], [1, 40], [90, 140], [120, 180], [45, 75], [10, 30]].map(([from, to], i) => ({
        tool: 'str_replace_editor',
        args: { command: 'view', path: '/workspace/billing/invoice.py', view_range: [from!, to!] },
        result: `Here's the result of running \`cat -n\` on /workspace/billing/invoice.py:\n${catN(INVOICE_PY, from!, to!)}\n`,
        ts: T0 + (i + 1) * 6_000,
      })),
    ],
  },
  {
    name: 'swe-agent-goto-inside-seen-windows',
    noiseClass: 'window re-reads',
    label: 'looping',
    loopStart: 1,
    calls: [
      bash('open /repo/src/parser.py', sweAgentWindow('/repo/src/parser.py', PARSER_PY, 1, 100), T0),
      bash('scroll_down', sweAgentWindow('/repo/src/parser.py', PARSER_PY, 99, 198), T0 + 5_000),
      // `goto N` shows the 100 lines around N: every one of them already shown.
      ...[60, 140, 120, 80, 100, 70, 130].map((line, i) => bash(`goto ${line}`, sweAgentWindow('/repo/src/parser.py', PARSER_PY, line - 49, line + 50), T0 + (i + 2) * 5_000)),
    ],
  },
  {
    name: 'swe-agent-scrolling-through-a-long-file',
    noiseClass: 'window re-reads',
    label: 'healthy',
    calls: [
      bash('open /repo/src/parser.py', sweAgentWindow('/repo/src/parser.py', PARSER_PY, 1, 100), T0),
      ...[99, 197, 295, 393].map((from, i) => bash('scroll_down', sweAgentWindow('/repo/src/parser.py', PARSER_PY, from, from + 99), T0 + (i + 1) * 5_000)),
      bash('goto 250', sweAgentWindow('/repo/src/parser.py', PARSER_PY, 201, 300), T0 + 30_000),
    ],
  },
  {
    name: 'mini-swe-agent-cat-then-sed-windows',
    noiseClass: 'window re-reads',
    label: 'looping',
    loopStart: 0,
    calls: [
      { tool: 'bash', args: { command: 'cat billing/invoice.py' }, result: { returncode: 0, output: `${INVOICE_PY.join('\n')}\n` }, ts: T0 },
      ...[[40, 80], [1, 30], [100, 150], [60, 90], [150, 180], [20, 45]].map(([from, to], i) => ({
        tool: 'bash',
        args: { command: `sed -n '${from},${to}p' billing/invoice.py` },
        result: { returncode: 0, output: `${INVOICE_PY.slice(from! - 1, to).join('\n')}\n` },
        ts: T0 + (i + 1) * 6_000,
      })),
    ],
  },
  {
    name: 'mini-swe-agent-cat-edit-numbered-windows',
    noiseClass: 'window re-reads',
    label: 'healthy',
    calls: [
      { tool: 'bash', args: { command: 'cat billing/invoice.py' }, result: { returncode: 0, output: `${INVOICE_PY.join('\n')}\n` }, ts: T0 },
      // Line numbers are news to an agent about to edit by line.
      { tool: 'bash', args: { command: "nl -ba billing/invoice.py | sed -n '40,60p'" }, result: { returncode: 0, output: `${catN(INVOICE_PY, 40, 60)}\n` }, ts: T0 + 6_000 },
      { tool: 'bash', args: { command: "sed -i 's/return str(value).strip()/return str(value).strip() or None/' billing/invoice.py" }, result: { returncode: 0, output: '' }, ts: T0 + 12_000 },
      { tool: 'bash', args: { command: "nl -ba billing/invoice.py | sed -n '40,60p'" }, result: { returncode: 0, output: `${catN(INVOICE_PY, 40, 60).replaceAll('strip()', 'strip() or None')}\n` }, ts: T0 + 18_000 },
      { tool: 'bash', args: { command: "sed -n '100,140p' billing/invoice.py" }, result: { returncode: 0, output: `${INVOICE_PY.slice(99, 140).join('\n').replaceAll('strip()', 'strip() or None')}\n` }, ts: T0 + 24_000 },
    ],
  },
  // 4. Shell polls: a command that sleeps then reads is a poll with a deadline.
  {
    name: 'gh-run-view-until-success',
    noiseClass: 'shell polls (sleep then read)',
    label: 'healthy',
    calls: Array.from({ length: 9 }, (_, i) => bash('sleep 30 && gh run view 123', ghRunView(i < 8 ? 'in_progress' : 'success', 1 + Math.floor((i * 35) / 60)), T0 + i * 35_000)),
  },
  {
    name: 'kubectl-crashloop-poll',
    noiseClass: 'shell polls (sleep then read)',
    label: 'looping',
    // A poll is honest until its deadline (document 001): the loop is polling past it, so it
    // starts at the last poll the deadline allows.
    loopStart: Math.floor(SHELL_POLL_DEADLINE_MS / KUBECTL_POLL_EVERY_MS),
    calls: Array.from({ length: 36 }, (_, i) => bash('sleep 20 && kubectl get pods', kubectlGetPods((i * KUBECTL_POLL_EVERY_MS) / 1000), T0 + i * KUBECTL_POLL_EVERY_MS)),
  },
  // A program that waits by itself: `kubectl rollout status --timeout=60s` blocks up to a minute
  // and answers the same progress line until a replica becomes available (kubectl 1.31's text).
  {
    name: 'kubectl-rollout-status-until-rolled-out',
    noiseClass: 'shell polls (sleep then read)',
    label: 'healthy',
    calls: [1, 1, 1, 2, 2, 3].map((available, i) =>
      bash('kubectl rollout status deployment/api --timeout=60s', rolloutStatus(available), T0 + i * ROLLOUT_WAIT_MS),
    ),
  },
  {
    name: 'kubectl-rollout-status-stuck',
    noiseClass: 'shell polls (sleep then read)',
    label: 'looping',
    loopStart: Math.floor(SHELL_POLL_DEADLINE_MS / ROLLOUT_WAIT_MS),
    calls: Array.from({ length: 16 }, (_, i) => bash('kubectl rollout status deployment/api --timeout=60s', rolloutStatus(1), T0 + i * ROLLOUT_WAIT_MS)),
  },
  // The wait in a call of its own (Claude Code's `Bash(sleep 5)`, then the look): the look after
  // each wait is a poll, as in one line; the dev server answers nothing until it is up.
  {
    name: 'dev-server-waited-on-in-separate-calls',
    noiseClass: 'shell polls (sleep then read)',
    label: 'healthy',
    calls: [
      bash('nohup npm run dev > server.log 2>&1 &', '', T0),
      ...Array.from({ length: 6 }, (_, i) => [
        bash('sleep 5', '', T0 + 1_000 + i * 7_000),
        bash('curl -s localhost:3000/api/health', i < 5 ? '' : '{"ok":true}', T0 + 6_500 + i * 7_000),
      ]).flat(),
    ],
  },
  // Re-run at once, with no sleep: the same look at a state that does not move, told apart
  // from the last only by its ages (kubectl's AGE and `(2m ago)`, docker's `Up 3 minutes`).
  {
    name: 'kubectl-get-pods-rerun-at-once',
    noiseClass: 'shell polls (ages in the output)',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 12 }, (_, i) => bash('kubectl get pods', kubectlGetPods(i * 8), T0 + i * 8_000)),
  },
  {
    name: 'docker-ps-rerun-at-once',
    noiseClass: 'shell polls (ages in the output)',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 12 }, (_, i) => bash('docker ps --filter name=db', dockerPs(2 + i, 'starting'), T0 + i * 60_000)),
  },
  // systemctl status re-run at once on a unit that keeps restarting and failing the same way:
  // its age (systemd's `5min 3s ago`) and the memory and CPU it has used tick, nothing else.
  {
    name: 'systemctl-status-rerun-at-once',
    noiseClass: 'shell polls (ages in the output)',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 10 }, (_, i) => bash('systemctl status api --no-pager', systemdStatus(`${5 + i}min ${(7 * i) % 60}s`, 'activating (auto-restart)', 40 + i), T0 + i * 8_000)),
  },
  {
    name: 'systemctl-status-after-each-fix',
    noiseClass: 'shell polls (ages in the output)',
    label: 'healthy',
    // Fix the unit, restart it, look: each look follows a write; the third fix works.
    calls: [1, 2, 3].flatMap((attempt) => [
      bash(`sed -i 's/^Environment=PORT=.*/Environment=PORT=${8080 + attempt}/' /etc/systemd/system/api.service`, '', T0 + attempt * 60_000),
      bash('systemctl daemon-reload && systemctl restart api', '', T0 + attempt * 60_000 + 5_000),
      bash('systemctl status api --no-pager', systemdStatus(`${attempt * 3}s`, attempt < 3 ? 'activating (auto-restart)' : 'active (running)', 40 + attempt), T0 + attempt * 60_000 + 9_000),
    ]),
  },
  {
    name: 'health-endpoint-rerun-at-once',
    noiseClass: 'shell polls (ages in the output)',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 12 }, (_, i) => bash('curl -s localhost:8080/health', healthCheck(3600 + i * 9, 'degraded'), T0 + i * 9_000)),
  },
  {
    name: 'health-endpoint-after-each-restart',
    noiseClass: 'shell polls (ages in the output)',
    label: 'healthy',
    // Fix, restart, look: each look follows a write, so the same answer again is no repeat; the third fix works.
    calls: [1, 2, 3].flatMap((attempt) => [
      bash(`sed -i 's/^DB_POOL=.*/DB_POOL=${attempt * 10}/' .env`, '', T0 + attempt * 60_000),
      bash('docker compose restart api', ' Container app-api-1  Restarting\n Container app-api-1  Started', T0 + attempt * 60_000 + 5_000),
      bash('curl -s localhost:8080/health', healthCheck(4 + attempt, attempt < 3 ? 'degraded' : 'ok'), T0 + attempt * 60_000 + 9_000),
    ]),
  },
  // The healthy twin: a look, then a wait that sleeps first (a poll), until the check passes.
  {
    name: 'docker-ps-then-sleep-until-healthy',
    noiseClass: 'shell polls (ages in the output)',
    label: 'healthy',
    calls: [
      bash('docker ps --filter name=db', dockerPs(0, 'starting'), T0),
      ...Array.from({ length: 6 }, (_, i) => bash('sleep 15 && docker ps --filter name=db', dockerPs(1 + i, i < 5 ? 'starting' : 'healthy'), T0 + (i + 1) * 60_000)),
    ],
  },
  // curl -sI re-run at once on a service that stays down: only the Date header moves.
  {
    name: 'http-head-rerun-at-once',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 10 }, (_, i) => bash('curl -sI https://api.internal.example/v1/status', httpHead(503, T0 + i * 4_000), T0 + i * 4_000)),
  },
  {
    name: 'http-head-after-each-deploy',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'healthy',
    // Deploy, look: each look follows a write, so the same 503 again is no repeat; the third deploy works.
    calls: [1, 2, 3].flatMap((attempt) => [
      bash(`kubectl set image deployment/api api=registry.example/api:1.4.${attempt}`, 'deployment.apps/api image updated', T0 + attempt * 60_000),
      bash('curl -sI https://api.internal.example/v1/status', httpHead(attempt < 3 ? 503 : 200, T0 + attempt * 60_000 + 30_000), T0 + attempt * 60_000 + 30_000),
    ]),
  },
  // The same behind a CDN: each response also names itself (cf-ray, x-amz-cf-id, traceparent) and
  // times itself (age, server-timing), and counts down the rate limit.
  {
    name: 'http-head-behind-a-cdn-rerun-at-once',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 10 }, (_, i) => bash('curl -sI https://api.example.com/v1/status', httpHeadBehindCdn(503, T0 + i * 4_000, i), T0 + i * 4_000)),
  },
  {
    name: 'http-head-behind-a-cdn-after-each-deploy',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'healthy',
    calls: [1, 2, 3].flatMap((attempt) => [
      bash(`kubectl set image deployment/api api=registry.example/api:1.4.${attempt}`, 'deployment.apps/api image updated', T0 + attempt * 60_000),
      bash('curl -sI https://api.example.com/v1/status', httpHeadBehindCdn(attempt < 3 ? 503 : 200, T0 + attempt * 60_000 + 30_000, attempt), T0 + attempt * 60_000 + 30_000),
    ]),
  },
  // curl without -s re-run at once on an endpoint that keeps answering 404: its progress meter's
  // speeds move, the body does not.
  {
    name: 'curl-with-progress-meter-rerun-at-once',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 10 }, (_, i) => bash('curl http://localhost:8000/api/items', curlWithMeter(i, '{"detail":"Not Found"}'), T0 + i * 6_000)),
  },
  {
    name: 'curl-with-progress-meter-after-each-fix',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'healthy',
    // Fix the route, look: the same 404 after an edit is no repeat; the third fix works.
    calls: [1, 2, 3].flatMap((attempt) => [
      bash(`sed -i 's#@app.get("/api/item[s]*/*")#@app.get("/api/items${attempt === 1 ? '/' : ''}")#' app/main.py`, '', T0 + attempt * 60_000),
      bash('curl http://localhost:8000/api/items', curlWithMeter(attempt, attempt < 3 ? '{"detail":"Not Found"}' : '[{"id":1,"name":"lamp"}]'), T0 + attempt * 60_000 + 5_000),
    ]),
  },
  // docker build re-run with no edit, failing the same way: BuildKit's per-line seconds move.
  {
    name: 'docker-build-rerun-without-edit',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 8 }, (_, i) => bash('docker build -t shop:dev .', dockerBuild(i, 'ERESOLVE unable to resolve dependency tree'), T0 + i * 40_000)),
  },
  {
    name: 'docker-build-after-each-dockerfile-edit',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'healthy',
    calls: [1, 2, 3].flatMap((attempt) => [
      bash(`sed -i 's/^RUN npm ci.*/RUN npm ci${attempt === 1 ? ' --legacy-peer-deps' : ' --force'}/' Dockerfile`, '', T0 + attempt * 90_000),
      bash('docker build -t shop:dev .', dockerBuild(attempt, attempt < 3 ? 'ERESOLVE could not resolve' : undefined), T0 + attempt * 90_000 + 5_000),
    ]),
  },
  // An evaluation script re-run with no edit: tqdm's clock and rate move, the accuracy does not.
  {
    name: 'eval-script-rerun-with-progress-bar',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 10 }, (_, i) => bash('python eval.py --split dev', tqdmRun(3 + (i % 3), 14.1 - i * 0.37, '0.412'), T0 + i * 20_000)),
  },
  {
    name: 'eval-script-after-each-config-change',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'healthy',
    calls: ['0.412', '0.455', '0.503'].flatMap((accuracy, attempt) => [
      bash(`sed -i 's/^lr: .*/lr: ${(3 - attempt) * 1e-4}/' config.yaml`, '', T0 + attempt * 90_000),
      bash('python eval.py --split dev', tqdmRun(3 + attempt, 13.9 + attempt, accuracy), T0 + attempt * 90_000 + 5_000),
    ]),
  },
  // jest under Node 22 re-run with no edit: only the process id of Node's punycode warning moves.
  {
    name: 'jest-rerun-with-node-warning',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 10 }, (_, i) => bash('npx jest src/date.test.ts', jestWithNodeWarning(48_213 + i * 17, 1, 0.8 + i / 10), T0 + i * 15_000)),
  },
  {
    name: 'jest-after-each-edit-with-node-warning',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'healthy',
    calls: [2, 1, 0].flatMap((failed, attempt) => [
      edit(T0 + attempt * 60_000, `parse${attempt}(`, `parse${attempt + 1}(`),
      bash('npx jest src/date.test.ts', jestWithNodeWarning(50_000 + attempt * 31, failed, 0.9), T0 + attempt * 60_000 + 10_000),
    ]),
  },
  // A parallel test runner: libtest prints each test's line as its thread finishes.
  {
    name: 'cargo-test-rerun-in-another-order',
    noiseClass: "a parallel test runner's order",
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 10 }, (_, i) => bash('cargo test', cargoTestOutput(i, ['FAILED', 'ok', 'ok', 'ok']), T0 + i * 12_000)),
  },
  {
    name: 'cargo-test-after-each-edit',
    noiseClass: "a parallel test runner's order",
    label: 'healthy',
    calls: [['FAILED', 'FAILED', 'ok', 'ok'], ['FAILED', 'ok', 'ok', 'ok'], ['ok', 'ok', 'ok', 'ok']].flatMap((statuses, attempt) => [
      edit(T0 + attempt * 60_000, `step${attempt}(`, `step${attempt + 1}(`),
      bash('cargo test', cargoTestOutput(attempt, statuses), T0 + attempt * 60_000 + 10_000),
    ]),
  },
  // A notebook cell re-run with nothing changed in the kernel: only IPython's execution count moves.
  {
    name: 'notebook-cell-rerun-same-error',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 10 }, (_, i) => ipythonCell("df.groupby('Region')['revenue'].sum()", 7 + i, GROUPBY_KEY_ERROR, T0 + i * 9_000)),
  },
  {
    name: 'notebook-cell-after-each-fix',
    noiseClass: 'clocks, rates and process ids in output',
    label: 'healthy',
    // A fix cell between each run: the kernel's state moved, so the same error again is no repeat.
    calls: ["df = df.rename(columns=str.strip)", "df = df.rename(columns=str.title)"].flatMap((fix, attempt) => [
      ipythonCell("df.groupby('Region')['revenue'].sum()", 7 + attempt * 2, GROUPBY_KEY_ERROR, T0 + attempt * 30_000),
      ipythonCell(fix, 8 + attempt * 2, '', T0 + attempt * 30_000 + 10_000),
    ]).concat([ipythonCell("df.groupby('Region')['revenue'].sum()", 11, 'Region\nNorth    51230.0\nSouth    40110.0\nName: revenue, dtype: float64', T0 + 70_000)]),
  },
  // A status tool nobody declared a poller: its answer says the state still moves (GitHub
  // REST's workflow run, `status` queued → in_progress → completed), so the same call again is
  // a wait — until 2 × threshold unchanged answers (document 002's check_job_status, ten) when
  // asked at once; looks paced one per 20 s or slower run to the poll deadline (document 001).
  {
    name: 'workflow-run-status-until-completed',
    noiseClass: 'status polls (a state still moving)',
    label: 'healthy',
    calls: workflowRunCalls(123, 9, 15_000, (i) => (i < 2 ? 'queued' : i < 8 ? 'in_progress' : 'completed')),
  },
  {
    // A nine-minute CI run watched every 30 s: 17 unchanged `in_progress` answers, then completed.
    name: 'workflow-run-status-paced-until-completed',
    noiseClass: 'status polls (a state still moving)',
    label: 'healthy',
    calls: workflowRunCalls(125, 19, 30_000, (i) => (i < 1 ? 'queued' : i < 18 ? 'in_progress' : 'completed')),
  },
  {
    // An action, not a look: tau-bench-style retail refund answering its own status. The same
    // refund again is another refund (world-state/names-a-status-look.ts).
    name: 'process-refund-again-while-processing',
    noiseClass: 'status polls (a state still moving)',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 8 }, (_, i) => ({
      tool: 'process_refund',
      args: { order_id: '#W6247578', item_ids: ['3799046073'], payment_method_id: 'credit_card_9513926' },
      result: { order_id: '#W6247578', refund_amount: 53.27, status: 'processing' },
      ts: T0 + i * 7_000,
    })),
  },
  {
    name: 'workflow-run-status-stuck-queued',
    noiseClass: 'status polls (a state still moving)',
    label: 'looping',
    // Honest until the tenth unchanged answer: the loop is polling past it.
    loopStart: 9,
    calls: workflowRunCalls(124, 24, 5_000, () => 'queued'),
  },
  // Ids in a write's answer: GitHub REST's "create an issue" answers with the new issue's id,
  // number, urls and times. The same create again makes a duplicate that differs only there.
  {
    name: 'github-create-same-issue-again',
    noiseClass: "ids in a write's answer",
    label: 'looping',
    loopStart: 0,
    calls: createIssueCalls(() => 'Login fails with 500'),
  },
  {
    name: 'github-create-ten-issues',
    noiseClass: "ids in a write's answer",
    label: 'healthy',
    calls: createIssueCalls((i) => `Flaky test ${i + 1}`),
  },
  // GitHub REST's "create a deployment" answers the new deployment with `"status": "pending"`
  // (via its statuses): a state still moving, but the same create again is another deployment.
  {
    name: 'github-create-same-deployment-pending',
    noiseClass: "ids in a write's answer",
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 10 }, (_, i) => ({
      tool: 'create_deployment',
      args: { owner: 'acme', repo: 'api', ref: 'main', environment: 'production' },
      result: { id: 1_022_4518 + i, node_id: `DE_kwDOA${i}Bc84A`, sha: 'a84d88e7554fc1fa21bcbc4efae3c782a70d2b9d', ref: 'main', environment: 'production', status: 'pending', created_at: `2026-12-06T03:0${i}:00Z`, url: `https://api.github.com/repos/acme/api/deployments/${1_022_4518 + i}` },
      ts: T0 + i * 6_000,
    })),
  },
  // 5. The same acknowledgement for different targets: Linear's GraphQL `issueAddLabel`
  // mutation answers `{"data":{"issueAddLabel":{"success":true}}}`, Slack's Web API `{"ok":true}`.
  {
    name: 'batch-relabel-50-issues',
    noiseClass: 'the same acknowledgement for different targets',
    label: 'healthy',
    calls: Array.from({ length: 50 }, (_, i) => ({
      tool: 'linear_add_label',
      args: { issueId: `ENG-${1200 + i}`, labelId: 'needs-triage' },
      result: { data: { issueAddLabel: { success: true } } },
      ts: T0 + i * 2_000,
    })),
  },
  {
    name: 'slack-react-to-50-messages',
    noiseClass: 'the same acknowledgement for different targets',
    label: 'healthy',
    calls: Array.from({ length: 50 }, (_, i) => ({
      tool: 'slack_add_reaction',
      args: { channel: 'C024BE91L', timestamp: `17644${(80_000 + i * 37).toString()}.000${200 + i}`, name: 'white_check_mark' },
      result: '{"ok":true}',
      ts: T0 + i * 2_000,
    })),
  },
  {
    name: 'relabel-the-same-issue-again',
    noiseClass: 'the same acknowledgement for different targets',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 8 }, (_, i) => ({
      tool: 'linear_add_label',
      args: { issueId: 'ENG-1207', labelId: 'needs-triage' },
      result: { data: { issueAddLabel: { success: true } } },
      ts: T0 + i * 2_000,
    })),
  },
  // A verdict of yes/no flags for one item after another (Shopify-style inventory check): each tells
  // about the SKU asked; the same SKU asked again with the same verdict is the loop.
  {
    name: 'stock-check-of-eight-skus-all-in-stock',
    noiseClass: 'the same acknowledgement for different targets',
    label: 'healthy',
    calls: Array.from({ length: 8 }, (_, i) => ({ tool: 'check_inventory', args: { sku: `LAMP-${100 + i}`, location: 'warehouse-2' }, result: { in_stock: true, backorder: false }, ts: T0 + i * 3_000 })),
  },
  {
    name: 'stock-check-of-the-same-sku-again',
    noiseClass: 'the same acknowledgement for different targets',
    label: 'looping',
    loopStart: 0,
    calls: Array.from({ length: 8 }, (_, i) => ({ tool: 'check_inventory', args: { sku: 'LAMP-104', location: 'warehouse-2' }, result: { in_stock: false, backorder: true }, ts: T0 + i * 3_000 })),
  },
  // 2. Paging past the end. Notion's search API: `{"object":"list","results":[…],
  // "next_cursor":…,"has_more":…}`; the agent asks by page number past the last page.
  {
    name: 'notion-search-pages-past-the-end',
    noiseClass: 'paging past the end',
    label: 'looping',
    loopStart: 2,
    calls: Array.from({ length: 10 }, (_, i) => ({
      tool: 'search_pages',
      args: { query: 'onboarding checklist', page: i + 1 },
      result:
        i === 0
          ? notionList(['Onboarding checklist', 'Onboarding: week one', 'Laptop setup'], 'c2f1a9e0-5d3b-4e8a-9b61-7f0c2d4e8a13')
          : i === 1
            ? notionList(['Onboarding for contractors'], null)
            : notionList([], null),
      ts: T0 + i * 4_000,
    })),
  },
  // A web search tool that echoes the page it was asked for past the last one
  // ("No results found for page 4."): each answer's number is the argument's, not news.
  {
    name: 'web-search-pages-past-the-end-echoing-the-page',
    noiseClass: 'paging past the end',
    label: 'looping',
    loopStart: 3,
    calls: Array.from({ length: 11 }, (_, i) => ({
      tool: 'web_search',
      args: { query: 'agent loop detection', page: i + 1 },
      result: i < 3 ? webSearchPage(i) : `No results found for page ${i + 1}.`,
      ts: T0 + i * 4_000,
    })),
  },
  {
    name: 'web-search-paged-to-its-last-page',
    noiseClass: 'paging past the end',
    label: 'healthy',
    // The agent pages until the first page past the end, then searches anew.
    calls: [
      ...Array.from({ length: 4 }, (_, i) => ({
        tool: 'web_search',
        args: { query: 'agent loop detection', page: i + 1 },
        result: i < 3 ? webSearchPage(i) : 'No results found for page 4.',
        ts: T0 + i * 4_000,
      })),
      { tool: 'web_search', args: { query: 'tool call loop OpenTelemetry', page: 1 }, result: webSearchPage(7), ts: T0 + 20_000 },
      { tool: 'web_search', args: { query: 'tool call loop OpenTelemetry', page: 2 }, result: 'No results found for page 2.', ts: T0 + 24_000 },
    ],
  },
  // A search tool on Elasticsearch pages with its `from` and `size`; past the last hit it answers its
  // total and its own clock (`took`) around an empty `hits`, for every further `from`.
  {
    name: 'elasticsearch-from-past-the-last-hit',
    noiseClass: 'paging past the end',
    label: 'looping',
    loopStart: 3,
    calls: Array.from({ length: 10 }, (_, i) => ({ tool: 'search_tickets', args: { query: 'refund', from: i * 10, size: 10 }, result: esPage(25, i * 10, 3 + (i % 4)), ts: T0 + i * 4_000 })),
  },
  {
    name: 'elasticsearch-from-paged-to-its-last-hit',
    noiseClass: 'paging past the end',
    label: 'healthy',
    // The agent pages to the first empty page, then asks another query.
    calls: [
      ...Array.from({ length: 4 }, (_, i) => ({ tool: 'search_tickets', args: { query: 'refund', from: i * 10, size: 10 }, result: esPage(25, i * 10, 4 + i), ts: T0 + i * 4_000 })),
      { tool: 'search_tickets', args: { query: 'chargeback', from: 0, size: 10 }, result: esPage(3, 0, 5, 'chargeback'), ts: T0 + 20_000 },
    ],
  },
  // Jira's search pages with `startAt`; past the last issue it answers its total around an empty
  // `issues`, for every further `startAt`.
  {
    name: 'jira-startat-past-the-last-issue',
    noiseClass: 'paging past the end',
    label: 'looping',
    loopStart: 1,
    calls: Array.from({ length: 9 }, (_, i) => ({ tool: 'jira_search', args: { jql: 'project = OPS AND status = Open', startAt: i * 50, maxResults: 50 }, result: jiraPage(42, i * 50), ts: T0 + i * 4_000 })),
  },
  {
    name: 'jira-startat-paged-then-another-query',
    noiseClass: 'paging past the end',
    label: 'healthy',
    calls: [
      ...Array.from({ length: 3 }, (_, i) => ({ tool: 'jira_search', args: { jql: 'project = OPS AND status = Open', startAt: i * 50, maxResults: 50 }, result: jiraPage(120, i * 50), ts: T0 + i * 4_000 })),
      { tool: 'jira_search', args: { jql: 'project = OPS AND status = Open', startAt: 150, maxResults: 50 }, result: jiraPage(120, 150), ts: T0 + 12_000 },
      { tool: 'jira_search', args: { jql: 'project = SEC AND status = Open', startAt: 0, maxResults: 50 }, result: jiraPage(7, 0, 'SEC'), ts: T0 + 16_000 },
    ],
  },
  {
    name: 'notion-different-searches-finding-nothing',
    noiseClass: 'paging past the end',
    label: 'healthy',
    calls: ['onboarding checklist', 'onboarding check list', 'new hire checklist', 'first week guide', 'laptop setup', 'vpn access', 'benefits enrolment', 'expense policy'].map((query, i) => ({
      tool: 'search_pages',
      args: { query, page: 1 },
      result: i === 7 ? notionList(['Expense policy 2025'], null) : notionList([], null),
      ts: T0 + i * 4_000,
    })),
  },
];

/** The scenario as replay transcript lines (one call per round). */
export function scenarioTranscriptLines(scenario: NoiseScenario): Array<Record<string, unknown>> {
  return scenario.calls.map((call, index) => {
    const line: Record<string, unknown> = { run: scenario.name, round: index + 1, tool: call.tool, args: call.args, callId: `call_${index + 1}`, ts: call.ts };
    if (call.error !== undefined) line.error = call.error;
    else line.result = call.result;
    return line;
  });
}
