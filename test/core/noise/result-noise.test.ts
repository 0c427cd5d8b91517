import { expect } from 'chai';
import { callSignature } from '../../../src/core/call-signature.js';
import { LoopGuardConfigError } from '../../../src/core/errors.js';
import { createNoiseFilter } from '../../../src/core/noise/create-noise-filter.js';
import { isCallClockStamp } from '../../../src/core/noise/is-call-clock-stamp.js';
import { AGO, DOCKER_UP, ISO_DATETIME, SHAPED_NOISE, SHAPED_NOISE_OWN_PASS, TABLE_AGE, TEXT_DURATION, TEXT_REQUEST_ID_PREFIX, UUID } from '../../../src/core/noise/result-noise-rules.js';
import { resolveOptions } from '../../../src/core/policy.js';
import { fingerprintError, fingerprintResult } from '../../../src/core/result-fingerprint.js';

const policy = resolveOptions().defaultTool;
const hashOf = (result: unknown, toolPolicy = policy) => fingerprintResult(result, toolPolicy, 1 << 24).resultHash;
const itemsOf = (result: unknown) => fingerprintResult(result, policy, 1 << 24).items;

/** Each rule: two results that differ only in noise are one result; a changed meaningful value is still new. */
function expectNoise(same: [unknown, unknown], changed: unknown): void {
  expect(hashOf(same[0]), 'noise removed').to.equal(hashOf(same[1]));
  expect(hashOf(changed), 'a changed meaningful value still counts as new').to.not.equal(hashOf(same[0]));
}

describe('noise in results (issue 24 #1)', () => {
  it('durations in test runner output: pytest `in 1.53s`, with the = rule that follows its length', () => {
    const pytest = (summary: string) => `collected 5 items\n\ntests/test_calc.py ....F [100%]\n${'='.repeat(20)} ${summary} ${'='.repeat(21)}`;
    expectNoise([pytest('1 failed, 4 passed in 1.53s'), pytest('1 failed, 4 passed in 10.61s')], pytest('2 failed, 3 passed in 1.53s'));
  });

  it("durations in go test (`(0.00s)`, `0.004s`), jest (`Time: 1.234 s, estimated 2 s`), cargo (`finished in 0.05s`), mocha (`(12ms)`)", () => {
    expectNoise(['--- FAIL: TestParse (0.00s)\nFAIL\tgithub.com/acme/x\t0.004s', '--- FAIL: TestParse (0.02s)\nFAIL\tgithub.com/acme/x\t0.011s'], '--- FAIL: TestFormat (0.00s)\nFAIL\tgithub.com/acme/x\t0.004s');
    expectNoise(['Tests:       1 failed, 3 passed, 4 total\nTime:        1.234 s', 'Tests:       1 failed, 3 passed, 4 total\nTime:        0.98 s'], 'Tests:       4 passed, 4 total\nTime:        1.234 s');
    // From its second run on, jest adds an estimate from the last run's time: whole seconds.
    expectNoise(['Tests:       1 failed, 3 passed, 4 total\nTime:        1.234 s, estimated 2 s', 'Tests:       1 failed, 3 passed, 4 total\nTime:        2.5 s, estimated 1 s'], 'Tests:       4 passed, 4 total\nTime:        1.234 s, estimated 2 s');
    expectNoise(['test result: FAILED. 3 passed; 1 failed; finished in 0.05s', 'test result: FAILED. 3 passed; 1 failed; finished in 0.07s'], 'test result: ok. 4 passed; 0 failed; finished in 0.05s');
    expectNoise(['  3 passing (12ms)\n  1 failing', '  3 passing (9ms)\n  1 failing'], '  4 passing (12ms)');
  });

  it('names the runtime makes up per run: pytest\'s base temp directory, a Python object\'s address, a tempfile name', () => {
    // Sphinx's test suite prints pytest's base temp directory, one number higher on every run
    // (SWE-bench sphinx runs in eval/corpus): the same failing test re-run printed a new result.
    const sphinx = (run: number, failed: string) =>
      `============================= test session starts ==============================\nplatform linux -- Python 3.9.20, pytest-8.3.3, pluggy-1.5.0\nlibraries: Sphinx-4.1.0, docutils-0.17.1\nbase tempdir: /tmp/pytest-of-root/pytest-${run}\nrootdir: /testbed\nconfigfile: setup.cfg\ncollected 1 item\n\ntests/test_domain_py.py F\nFAILED ${failed}`;
    expectNoise([sphinx(0, 'tests/test_domain_py.py::test_info_field_list'), sphinx(3, 'tests/test_domain_py.py::test_info_field_list')], sphinx(0, 'tests/test_domain_py.py::test_pyfunction'));
    // A repr printed by a reproduction script: the address is new in every process.
    const repr = (address: string, value: string) => `<astropy.io.fits.column.Column object at ${address}>\nname = ${value}`;
    expectNoise([repr('0x7f756da73710', "'a'"), repr('0x708b9382eca0', "'a'")], repr('0x7f756da73710', "'b'"));
    const missing = (name: string, file: string) => `FileNotFoundError: [Errno 2] No such file or directory: '/tmp/${name}.${file}'`;
    expectNoise([missing('tmpo1apzkgx', 'upload.txt'), missing('tmp5oobmdgp', 'upload.txt')], missing('tmpo1apzkgx', 'download.txt'));
    // Data that only looks alike stays: a hex value that is not an address in a repr, a path under /tmp of your own.
    expect(hashOf('checksum 0x7f756da73710')).to.not.equal(hashOf('checksum 0x708b9382eca0'));
    expect(hashOf('/tmp/build-1/out.txt')).to.not.equal(hashOf('/tmp/build-2/out.txt'));
  });

  it("test runners' clocks, rates and seeds: vitest `Start at`, PHPUnit `Time: 00:00.012`, minitest runs/s, node:test `duration_ms`, tox's setup+cmd, SymPy's and pytest-randomly's seeds", () => {
    const vitest = (start: string, ms: number, failed: number) =>
      ` FAIL  src/cart.test.ts > adds a line\n Test Files  1 failed (1)\n      Tests  ${failed} failed | 2 passed (3)\n   Start at  ${start}\n   Duration  ${ms}ms (transform 20ms, setup 0ms, collect 30ms, tests 5ms)`;
    expectNoise([vitest('14:00:01', 812, 1), vitest('14:02:37', 790, 1)], vitest('14:00:01', 812, 2));
    const phpunit = (time: string, memory: string, failures: number) => `F..  3 / 3 (100%)\n\nTime: ${time}, Memory: ${memory}\n\nFAILURES!\nTests: 3, Assertions: 3, Failures: ${failures}.`;
    expectNoise([phpunit('00:00.012', '6.00 MB', 1), phpunit('00:00.019', '8.00 MB', 1)], phpunit('00:00.012', '6.00 MB', 2));
    expectNoise([phpunit('12 ms', '4.00 MB', 1), phpunit('15 ms', '4.00 MB', 1)], phpunit('12 ms', '4.00 MB', 2));
    // A laptop's spec sheet is not PHPUnit's line: its memory is data.
    expect(hashOf('Developer Laptop (Mac)\nBattery Time: 10 hours, Memory: 16 GB')).to.not.equal(hashOf('Developer Laptop (Mac)\nBattery Time: 10 hours, Memory: 32 GB'));
    const minitest = (seconds: string, rate: string, failures: number) => `Finished in ${seconds}s, ${rate} runs/s, ${rate} assertions/s.\n1 runs, 1 assertions, ${failures} failures, 0 errors, 0 skips`;
    expectNoise([minitest('0.001234', '810.3', 1), minitest('0.002001', '499.7', 1)], minitest('0.001234', '810.3', 0));
    const nodeTest = (each: string, total: string, fail: number) => `not ok 1 - adds a line\n  ---\n  duration_ms: ${each}\n  ...\n# tests 1\n# fail ${fail}\n# duration_ms ${total}`;
    expectNoise([nodeTest('0.812', '45.67', 1), nodeTest('0.911', '51.02', 1)], nodeTest('0.812', '45.67', 0));
    const tox = (timing: string, code: number) => `py39: commands failed\n  py39: FAIL code ${code} (${timing} seconds)`;
    expectNoise([tox('3.21=setup[1.02]+cmd[2.19]', 1), tox('3.45=setup[1.10]+cmd[2.35]', 1)], tox('3.21=setup[1.02]+cmd[2.19]', 2));
    // Random seeds a runner draws on every run: SymPy's test header (75 of SWE-bench Verified's
    // instances; sympy runs in eval/corpus), as plain text and inside a {returncode, output} result.
    const sympy = (seed: number, hashSeed: number, failed: string) =>
      `============================= test process starts ==============================\nexecutable:         /opt/miniconda3/envs/testbed/bin/python  (3.9.20-final-0) [CPython]\narchitecture:       64-bit\ncache:              yes\nground types:       python \nnumpy:              None\nrandom seed:        ${seed}\nhash randomization: on (PYTHONHASHSEED=${hashSeed})\n\nsympy/printing/pretty/tests/test_pretty.py[142] ${failed}`;
    expectNoise([sympy(58185801, 2322889254, '...F..'), sympy(11784972, 1637063200, '...F..')], sympy(58185801, 2322889254, '......'));
    const wrapped = (seed: number, hashSeed: number) => ({ returncode: 1, output: sympy(seed, hashSeed, '...F..') });
    expectNoise([wrapped(58185801, 2322889254), wrapped(5745444, 4266025786)], { returncode: 0, output: sympy(58185801, 2322889254, '......') });
    const randomly = (seed: number, failed: number) => `Using --randomly-seed=${seed}\nrootdir: /repo\ncollected 4 items\n\n${failed} failed, ${4 - failed} passed`;
    expectNoise([randomly(3817263, 1), randomly(1290473, 1)], randomly(3817263, 2));
    // A seed chosen on the command line is the user's, the same on every run: data.
    expect(hashOf('$ pytest -p randomly --randomly-seed=12')).to.not.equal(hashOf('$ pytest -p randomly --randomly-seed=13'));
    // A time of day anywhere else is data: a flight, a meeting, a shop's hours.
    expect(hashOf('Flight BA117 departs at 14:00:00')).to.not.equal(hashOf('Flight BA117 departs at 16:30:00'));
    expect(hashOf('Flight BA117\nDeparture Time: 08:45\nSeats: 4')).to.not.equal(hashOf('Flight BA117\nDeparture Time: 09:30\nSeats: 4'));
    expect(hashOf({ meeting: 'Standup', note: 'Start at 09:00:00' })).to.not.equal(hashOf({ meeting: 'Standup', note: 'Start at 09:30:00' }));
  });

  it("a response's own clock and a progress bar's rate: HTTP's `Date:` header, tqdm's `[00:03<00:00, 14.10it/s]`, pip's `3.4 MB/s eta 0:00:00`; a due date, a Last-Modified and a measured speed are data", () => {
    // `curl -sI` on a service that stays down: only the header's clock moves.
    const head = (date: string, status: number) => `HTTP/2 ${status}\ndate: ${date}\ncontent-type: application/json\nretry-after: 30`;
    expectNoise([head('Sun, 06 Dec 2026 09:10:00 GMT', 503), head('Sun, 06 Dec 2026 09:11:07 GMT', 503)], head('Sun, 06 Dec 2026 09:10:00 GMT', 200));
    const verbose = (date: string, body: string) => `< HTTP/1.1 503 Service Unavailable\n< Date: ${date}\n< Content-Length: 19\n<\n${body}`;
    expectNoise([verbose('Sun, 06 Dec 2026 09:10:00 GMT', '{"error":"upstream"}'), verbose('Mon, 07 Dec 2026 00:00:59 GMT', '{"error":"upstream"}')], verbose('Sun, 06 Dec 2026 09:10:00 GMT', '{"error":"database"}'));
    expect(hashOf('Ticket 12\nDue date: Mon, 07 Dec 2026 17:00:00 GMT')).to.not.equal(hashOf('Ticket 12\nDue date: Tue, 08 Dec 2026 17:00:00 GMT'));
    expect(hashOf('HTTP/2 200\nlast-modified: Sun, 06 Dec 2026 09:10:00 GMT')).to.not.equal(hashOf('HTTP/2 200\nlast-modified: Sun, 06 Dec 2026 09:12:00 GMT'));
    // Behind a CDN or a cloud load balancer each response names itself and its timings in headers of
    // their own (Cloudflare's cf-ray, CloudFront's x-amz-cf-id, a cache's age, server-timing): only those move.
    const cdn = (ray: string, age: number, status: number) =>
      `HTTP/2 ${status}\ncontent-type: application/json\ncf-ray: ${ray}\nx-amz-cf-id: ${ray}Zk9Q==\nAge: ${age}\nserver-timing: app;dur=${age * 3}.2\nx-ratelimit-remaining: ${4999 - age}\ntraceparent: 00-${ray.padEnd(32, '0')}-00f067aa0ba902b7-01`;
    expectNoise([cdn('8f2a1c3b4d5e6f70-IAD', 12, 503), cdn('9b3a1c3b4d5e6f71-FRA', 47, 503)], cdn('8f2a1c3b4d5e6f70-IAD', 12, 200));
    // The same header names in a JSON dump of the headers, and W3C trace context as a member.
    expectNoise([{ status: 503, headers: { 'cf-ray': '8f2a1c3b4d5e6f70-IAD', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } }, { status: 503, headers: { 'cf-ray': '9b3a1c3b4d5e6f71-FRA', traceparent: '00-5cf92f3577b34da6a3ce929d0e0e4736-10f067aa0ba902b7-01' } }], { status: 200, headers: { 'cf-ray': '8f2a1c3b4d5e6f70-IAD' } });
    // Outside a response's headers the same words are data.
    expect(hashOf('Patient record\nAge: 41\nBlood type: A')).to.not.equal(hashOf('Patient record\nAge: 42\nBlood type: A'));
    // A training or evaluation script re-run with no edit: the bar's clock and rate move, the metric is the outcome.
    const tqdm = (bar: string, accuracy: string) => `Evaluating: 100%|██████████| 50/50 ${bar}\naccuracy: ${accuracy}`;
    expectNoise([tqdm('[00:03<00:00, 14.10it/s]', '0.42'), tqdm('[00:04<00:00, 12.87it/s]', '0.42')], tqdm('[00:03<00:00, 14.10it/s]', '0.57'));
    expectNoise([tqdm('[01:02<00:00,  2.31s/it]', '0.42'), tqdm('[00:58<00:00,  1.97s/it]', '0.42')], tqdm('[01:02<00:00,  2.31s/it]', '0.57'));
    expectNoise([tqdm('[00:00<?, ?it/s]', '0.42'), tqdm('[00:01<00:00, 31.2MB/s]', '0.42')], tqdm('[00:00<?, ?it/s]', '0.57'));
    // The count is kept: a run cut short is another outcome.
    expect(hashOf(tqdm('[00:03<00:00, 14.10it/s]', '0.42'))).to.not.equal(hashOf(tqdm('[00:03<00:00, 14.10it/s]', '0.42').replace('50/50', '37/50')));
    const pip = (rate: string, error: string) => `Collecting torch==2.9.0\n  Downloading torch-2.9.0-cp311-cp311-manylinux_2_28_x86_64.whl (899.7 MB)\n     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 899.7/899.7 MB ${rate} eta 0:00:00\nERROR: ${error}`;
    expectNoise([pip('3.4 MB/s', 'No space left on device'), pip('11.2 MB/s', 'No space left on device')], pip('3.4 MB/s', 'Hash mismatch'));
    // A speed the tool measured is its answer (tau2's telecom speed test).
    expect(hashOf('Speed test: Download 5.2 MB/s, Upload 1.1 MB/s')).to.not.equal(hashOf('Speed test: Download 48.3 MB/s, Upload 12.0 MB/s'));
  });

  it("build and fetch tools' own clocks: curl's progress meter, BuildKit's per-line seconds, MSBuild's `Time Elapsed`, RSpec's and minitest's seeds; numbers outside those shapes are data", () => {
    // curl without -s (the meter goes to stderr whenever stdout is not a terminal): rows of sizes, speeds and clocks.
    const meter = (speed: number, clock: string, body: string) =>
      `  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0\r100    22  100    22    0     0   ${speed}      0 ${clock} ${clock} --:--:--  ${speed + 7}\n${body}`;
    expectNoise([meter(1211, '--:--:--', '{"detail":"Not Found"}'), meter(4377, ' 0:00:01', '{"detail":"Not Found"}')], meter(1211, '--:--:--', '{"detail":"Forbidden"}'));
    // The same inside a harness's JSON object (escaped line breaks and carriage returns), and with more rows for a slower transfer.
    expectNoise([{ returncode: 0, output: meter(1211, '--:--:--', 'ok') }, { returncode: 0, output: meter(98, ' 0:00:02', 'ok').replace('\n{', '\r100    22  100    22    0     0     11      0  0:00:02  0:00:02 --:--:--    11\n{') }], { returncode: 0, output: meter(1211, '--:--:--', 'not ok') });
    // BuildKit's plain progress: `#9 0.512 …` in the log, `0.512 …` in the failed step's excerpt.
    const build = (seconds: [string, string], error: string) =>
      `#9 [4/6] RUN npm ci\n#9 ${seconds[0]} npm error code ERESOLVE\n#9 ${seconds[1]} npm error ${error}\n#9 ERROR: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1\n------\n > [4/6] RUN npm ci:\n${seconds[0]} npm error code ERESOLVE\n${seconds[1]} npm error ${error}\n------\nERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1`;
    expectNoise([build(['0.512', '0.533'], 'ERESOLVE unable to resolve'), build(['1.204', '1.251'], 'ERESOLVE unable to resolve')], build(['0.512', '0.533'], 'notarget No matching version'));
    expectNoise([{ output: build(['0.512', '0.533'], 'a "peer" dep') }, { output: build(['2.010', '2.044'], 'a "peer" dep') }], { output: build(['0.512', '0.533'], 'a "dev" dep') });
    // MSBuild's summary, RSpec's and minitest's seeds.
    const msbuild = (elapsed: string, errors: number) => `Build FAILED.\n\n    0 Warning(s)\n    ${errors} Error(s)\n\nTime Elapsed ${elapsed}`;
    expectNoise([msbuild('00:00:02.10', 1), msbuild('00:00:04.87', 1)], msbuild('00:00:02.10', 2));
    const rspec = (seed: number, failures: number) => `Randomized with seed ${seed}\n.F.\n\n3 examples, ${failures} failure\n\nRandomized with seed ${seed}`;
    expectNoise([rspec(31415, 1), rspec(2718, 1)], rspec(31415, 2));
    const minitest = (seed: number, failures: number) => `Run options: -n test_sum --seed ${seed}\n\n# Running:\n\nF\n\n1 runs, 1 assertions, ${failures} failures, 0 errors, 0 skips`;
    expectNoise([minitest(31415, 1), minitest(2718, 1)], minitest(31415, 0));
    // Outside those shapes the same numbers are data: a table of floats, a seed in prose, an elapsed time in a report.
    expect(hashOf('0.512 npm\n0.533 yarn')).to.not.equal(hashOf('0.612 npm\n0.533 yarn'));
    expect(hashOf('The orchard was planted with seed 31415')).to.not.equal(hashOf('The orchard was planted with seed 2718'));
    expect(hashOf('Race results\nTime Elapsed 02:11:09')).to.not.equal(hashOf('Race results\nTime Elapsed 02:12:40'));
    expect(hashOf('run 1  100  22  100  22  0  0  1211  0  --:--:--')).to.not.equal(hashOf('run 1  100  22  100  22  0  0  4377  0  --:--:--'));
  });

  it('no rule can start a match anywhere inside a long run: each begins with `\\b`, a lookbehind, a literal or a bounded repetition', () => {
    // A rule whose first token is an unbounded repetition (`\\d+`, ` *`) is retried from every
    // place inside a long run of what it repeats, and each try runs to the run's end: tox's
    // `\\d+=setup[` made the shared pass quadratic (80,000 digits next to any literal: 3.7 s; a
    // megabyte: minutes, the host stalled), as did a first draft of curl's meter (` *`, 40,000
    // spaces: 0.75 s) and of BuildKit's seconds (`(?=\\d+\\.`, 40,000 digits: 1.6 s).
    const rules = [...SHAPED_NOISE, ...SHAPED_NOISE_OWN_PASS].map(({ literal, pattern }) => ({ name: literal, pattern }));
    rules.push({ name: 'AGO', pattern: AGO }, { name: 'DOCKER_UP', pattern: DOCKER_UP }, { name: 'TABLE_AGE', pattern: TABLE_AGE }, { name: 'TEXT_DURATION', pattern: TEXT_DURATION });
    rules.push({ name: 'ISO_DATETIME', pattern: ISO_DATETIME }, { name: 'UUID', pattern: UUID }, { name: 'TEXT_REQUEST_ID_PREFIX', pattern: TEXT_REQUEST_ID_PREFIX });
    for (const { name, pattern } of rules) expect(unanchoredStarts(pattern), name).to.deep.equal([]);
    // The check itself finds each of those three.
    expect(unanchoredStarts('\\d+(?:\\.\\d+)?=setup\\[')).to.have.length(1);
    expect(unanchoredStarts(' *\\d{1,3} +\\d')).to.have.length(1);
    expect(unanchoredStarts('(?=\\d+\\.\\d{3} )(?<=#\\d{1,4} )\\d+')).to.have.length(1);
  });

  it("process ids in a runtime's own notices: Node's `(node:48213) … Warning:`, uvicorn's `Started server process [31000]`, npm's debug log named by the clock; a pid anywhere else is data", () => {
    // Every npx of a 2025 toolchain on Node 21+ prints the punycode warning with its process id.
    const jest = (pid: number, failed: number) =>
      `(node:${pid}) [DEP0040] DeprecationWarning: The \`punycode\` module is deprecated. Please use a userland alternative instead.\n(Use \`node --trace-deprecation ...\` to show where the warning was created)\nTests:       ${failed} failed, 1 total`;
    expectNoise([jest(48213, 1), jest(48230, 1)], jest(48213, 0));
    expectNoise([`(node:7) ExperimentalWarning: VM Modules is an experimental feature\nFAIL a.test.mjs`, `(node:9) ExperimentalWarning: VM Modules is an experimental feature\nFAIL a.test.mjs`], `(node:7) ExperimentalWarning: VM Modules is an experimental feature\nPASS a.test.mjs`);
    const uvicorn = (pid: number, port: number) =>
      `INFO:     Started server process [${pid}]\nINFO:     Waiting for application startup.\nERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', ${port}): address already in use\nINFO:     Finished server process [${pid}]`;
    expectNoise([uvicorn(31000, 8000), uvicorn(31011, 8000)], uvicorn(31000, 8001));
    const npm = (stamp: string, code: string) => `npm error code ${code}\nnpm error A complete log of this run can be found in: /root/.npm/_logs/${stamp}-debug-0.log`;
    expectNoise([npm('2026-12-06T09_10_30_120Z', 'ERESOLVE'), npm('2026-12-06T09_12_01_007Z', 'ERESOLVE')], npm('2026-12-06T09_10_30_120Z', 'E404'));
    // A process id the tool reports as its answer stays: `pgrep`, a job started, Node's own `process.pid`.
    expect(hashOf('(node) pid 48213')).to.not.equal(hashOf('(node) pid 48230'));
    expect(hashOf('worker started: process [31000]')).to.not.equal(hashOf('worker started: process [31011]'));
  });

  it("a Jupyter kernel's execution count in a traceback's first frame: IPython 8's `Cell In[7], line 1`, IPython 7's `<ipython-input-7-…>`; the same numbers elsewhere are data", () => {
    const cell = (count: number, key: string) =>
      `---------------------------------------------------------------------------\nKeyError                                  Traceback (most recent call last)\nCell In[${count}], line 1\n----> 1 df.groupby('Region').revenue.sum()\nKeyError: '${key}'`;
    expectNoise([cell(7, 'Region'), cell(12, 'Region')], cell(7, 'region'));
    // Inside a JSON text (a Jupyter MCP server's {"outputs": [...]}): the line break is `\n` escaped.
    expectNoise([{ outputs: [cell(3, 'Region')] }, { outputs: [cell(4, 'Region')] }], { outputs: [cell(3, 'region')] });
    const old = (count: number, line: number) => `KeyError                                  Traceback (most recent call last)\n<ipython-input-${count}-2b7e4c5f3d1a> in <module>\n----> ${line} df['Region']`;
    expectNoise([old(3, 1), old(9, 1)], old(3, 2));
    // A later frame names the cell that defined a function: its count is where the code lives.
    const nested = (definedIn: number) => `ValueError                                Traceback (most recent call last)\nCell In[9], line 1\n----> 1 clean(df)\n\nCell In[${definedIn}], line 3, in clean(frame)\nValueError: bad`;
    expect(hashOf(nested(4))).to.not.equal(hashOf(nested(5)));
    // A notebook's own text that cites a cell is data.
    expect(hashOf('See Cell In[7], line 1 for the cleaning step')).to.not.equal(hashOf('See Cell In[8], line 1 for the cleaning step'));
  });

  it("ages that tick between two looks at the same state: `3 minutes ago`, docker's `Up About an hour`, kubectl's AGE column and `(2m30s ago)`; other lengths and ages are data", () => {
    const pods = (restarts: number, lastRestart: string, age: string) =>
      `NAME                        READY   STATUS             RESTARTS        AGE\napi-7d9f8b6c5d-x2k4q        0/1     CrashLoopBackOff   ${`${restarts} (${lastRestart} ago)`.padEnd(15)} ${age}\npostgres-0                  1/1     Running            0               3h${age.length}m`;
    expectNoise([pods(4, '30s', '4m'), pods(4, '2m30s', '6m10s')], pods(5, '30s', '4m'));
    expectNoise([pods(4, '9s', '95m'), pods(4, '3d4h', '2y30d')], pods(4, '9s', '95m').replace('CrashLoopBackOff', 'Running         '));
    // The same table inside a {returncode, output} result (JSON text: `\n` escaped, the age before `\"`).
    expectNoise([{ returncode: 0, output: pods(4, '30s', '4m') }, { returncode: 0, output: pods(4, '1m', '12d') }], { returncode: 0, output: pods(5, '30s', '4m') });
    const docker = (status: string, created: string) => `CONTAINER ID   IMAGE         STATUS                          NAMES\n3f2a1b9c8d7e   postgres:16   ${status}   db\n(created ${created})`;
    expectNoise([docker('Up 3 minutes (health: starting)', '3 minutes ago'), docker('Up About an hour (health: starting)', 'an hour ago')], docker('Up 3 minutes (healthy)', '3 minutes ago'));
    expectNoise(['Triggered via push about 1 minute ago', 'Triggered via push about 12 minutes ago'], 'Triggered via pull_request about 1 minute ago');
    expectNoise(['Triggered via push less than a minute ago', 'Triggered via push about 2 hours ago'], 'Triggered via pull_request less than a minute ago');
    // systemctl status on a service that stays as it is: its age in systemd's own compact form and
    // the memory and CPU time it has used so far tick; its state, PID and log lines do not.
    const unit = (age: string, memory: string, cpu: string, state = 'active (running)') =>
      `● nginx.service - A high performance web server\n     Loaded: loaded (/lib/systemd/system/nginx.service; enabled; vendor preset: enabled)\n     Active: ${state} since Mon 2026-12-07 16:01:02 UTC; ${age} ago\n   Main PID: 4242 (nginx)\n      Tasks: 3 (limit: 4915)\n     Memory: ${memory}\n        CPU: ${cpu}\n\nDec 07 16:01:02 web-1 systemd[1]: Started nginx.service.`;
    expectNoise([unit('38s', '12.3M', '126ms'), unit('5min 3s', '12.9M (peak: 14.1M)', '1.234s')], unit('38s', '12.3M', '126ms', 'activating (auto-restart)'));
    expectNoise([unit('1h 2min', '12.3M', '126ms'), unit('2 days 4h', '1.2G', '3min 1.2s')], unit('1h 2min', '12.3M', '126ms', 'failed (Result: exit-code)'));
    // Not an age in those shapes: a cable's length, a wine's age, a table without a kubectl AGE header.
    expect(hashOf({ item: 'HDMI cable', length: '5m' })).to.not.equal(hashOf({ item: 'HDMI cable', length: '10m' }));
    expect(hashOf('Scotch whisky, aged 12 years')).to.not.equal(hashOf('Scotch whisky, aged 18 years'));
    expect(hashOf('NAME   SIZE\nlogs   5m')).to.not.equal(hashOf('NAME   SIZE\nlogs   9m'));
    expect(hashOf('Wake me up 5 minutes before')).to.not.equal(hashOf('Wake me up 9 minutes before'));
  });

  it("a write's answer without the record it made (id, number, url, created_at, Slack's ts): the same write again answers the same; a read keeps them", () => {
    const writes = resolveOptions().tool('create_ticket');
    const created = (id: number, title = 'Login broken') => ({ id: `T-${id}`, number: id, title, status: 'open', url: `https://desk.example.com/t/${id}`, created_at: `2026-12-01T10:0${id % 10}:00Z`, author: { id: 7, login: 'ana' } });
    expect(hashOf(created(1001), writes)).to.equal(hashOf(created(1002), writes));
    expect(hashOf(JSON.stringify(created(1001)), writes)).to.equal(hashOf(JSON.stringify(created(1002)), writes));
    expect(hashOf(created(1001, 'Signup broken'), writes)).to.not.equal(hashOf(created(1002), writes));
    const posted = (ts: string) => ({ ok: true, channel: 'C024BE91L', ts, message: { text: 'Deploy done', ts } });
    expect(hashOf(posted('1764480000.000100'), resolveOptions().tool('send_message'))).to.equal(hashOf(posted('1764480007.000200'), resolveOptions().tool('send_message')));
    // A read's ids are data: another ticket is another fact.
    expect(hashOf(created(1001), resolveOptions().tool('get_ticket'))).to.not.equal(hashOf(created(1002), resolveOptions().tool('get_ticket')));
  });

  it('duration fields in JSON by name and number: took, execution_time_ms, elapsed', () => {
    const rows = (count: number, ms: number) => ({ rows: [{ id: 1, name: 'ana' }, { id: 2, name: 'bo' }].slice(0, count), rowCount: count, execution_time_ms: ms, took: ms / 2 });
    expectNoise([rows(2, 14.2), rows(2, 9.7)], rows(1, 14.2));
  });

  it('relevance scores: a fractional score under a score-like name is noise; an integer score is data', () => {
    const hits = (first: number, id = 'kb-17') => ({ max_score: first, hits: [{ _id: id, _score: first, title: 'Refund policy' }, { _id: 'kb-42', _score: 0.77, title: 'Returns FAQ' }] });
    expectNoise([hits(2.4123), hits(2.4387)], hits(2.4123, 'kb-18'));
    expect(hashOf({ team: 'a', score: 3 })).to.not.equal(hashOf({ team: 'a', score: 4 }));
  });

  it('clock fields (timestamp, server_time, generated_at) by name and ISO/epoch value; a time that is a field of the data stays', () => {
    expectNoise([{ status: 'open', timestamp: '2025-11-02T10:00:01.123Z' }, { status: 'open', timestamp: '2025-11-02T10:00:09.554Z' }], { status: 'closed', timestamp: '2025-11-02T10:00:01.123Z' });
    expectNoise([{ balance: 10, server_time: 1794474000 }, { balance: 10, server_time: 1794474011 }], { balance: 11, server_time: 1794474000 });
    expect(hashOf({ event: 'standup', start: '2025-11-02T10:00:00Z' })).to.not.equal(hashOf({ event: 'standup', start: '2025-11-02T14:00:00Z' }));
  });

  it('ISO times, UUIDs and request ids inside text (log lines, error bodies); a UUID that is a record id stays', () => {
    expectNoise(
      ['Error: 401 Unauthorized (request id: 7f3c2a1b-aaaa-bbbb-cccc-1234567890ab) at 2025-11-02T10:00:01Z', 'Error: 401 Unauthorized (request id: 0d9e8f7a-1111-2222-3333-444455556666) at 2025-11-02T10:00:07Z'],
      'Error: 403 Forbidden (request id: 7f3c2a1b-aaaa-bbbb-cccc-1234567890ab) at 2025-11-02T10:00:01Z',
    );
    expectNoise(['job 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d queued', 'job 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed queued'], 'job 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d failed');
    expect(hashOf({ id: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d', name: 'x' })).to.not.equal(hashOf({ id: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed', name: 'x' }));
    // A date alone is data, never noise.
    expect(hashOf('report for 2025-11-02')).to.not.equal(hashOf('report for 2025-11-03'));
  });

  it('error bodies: the same error with another request id is the same error; another error is not', () => {
    const error = (id: string, message = 'Bad credentials') => fingerprintError({ type: 'HttpError', status: 401, message: `${message} (x-github-request-id: ${id})` }).resultHash;
    expect(error('C6E8:3A0B:1B2C3D:1C4D5E:6718A9F2')).to.equal(error('C6E8:3A6C:1B2C3D:1C4D5E:6718A9F9'));
    expect(error('C6E8:3A0B:1B2C3D:1C4D5E:6718A9F2', 'Resource not accessible by integration')).to.not.equal(error('C6E8:3A0B:1B2C3D:1C4D5E:6718A9F2'));
  });

  it('item-level novelty survives a sibling empty array and noise fields inside each item', () => {
    const page = (scores: number[], ids: string[]) => ({ images: [], results: ids.map((id, i) => ({ id, title: `Product ${id}`, relevance_score: scores[i], fetched_at: '2025-11-02T10:00:00Z' })) });
    const first = itemsOf(page([0.91, 0.82], ['p1', 'p2']))!;
    const again = itemsOf(page([0.93, 0.79], ['p2', 'p1']))!;
    expect(first).to.have.length(2);
    expect([...again].sort()).to.deep.equal([...first].sort());
    expect(itemsOf(page([0.91, 0.82], ['p1', 'p3']))).to.not.deep.equal(first);
  });

  it('per tool: resultNoise false keeps timings (a benchmark tool), resultNoisePatterns adds the tool\'s own', () => {
    const options = resolveOptions({ tools: { bench: { resultNoise: false }, ci: { resultNoisePatterns: ['build #\\d+'] } } });
    expect(hashOf('p50 1.53s', options.tool('bench'))).to.not.equal(hashOf('p50 1.61s', options.tool('bench')));
    expect(hashOf('build #812 failed', options.tool('ci'))).to.equal(hashOf('build #813 failed', options.tool('ci')));
    expect(hashOf('build #812 failed', options.tool('ci'))).to.not.equal(hashOf('build #812 passed', options.tool('ci')));
    expect(() => resolveOptions({ tools: { ci: { resultNoisePatterns: ['build #(\\d+'] } } }))
      .to.throw(LoopGuardConfigError)
      .with.property('message')
      .that.matches(/tools\.ci\.resultNoisePatterns\[0\]/);
  });

  it('a text without noise is returned as it is (no copy)', () => {
    const text = JSON.stringify({ results: [{ id: 'doc-1', title: 'Document 1 about refunds', count: 3 }] });
    expect(createNoiseFilter()(text)).to.equal(text);
  });

  it('an ISO time written with a space (`2024-05-01 12:03:04`) is noise even when nothing else in the text is (the cheap gate must open for it)', () => {
    // Before the fix the gate looked for a digit before `T` or a unit letter only, so a
    // space-separated time alone never reached the full expression.
    expectNoise(['deployed at 2024-05-01 12:03:04', 'deployed at 2024-05-01 12:03:09'], 'rolled back at 2024-05-01 12:03:04');
    expectNoise([{ status: 'open', timestamp: '2024-05-01 12:03:04' }, { status: 'open', timestamp: '2024-05-01 12:07:41' }], { status: 'closed', timestamp: '2024-05-01 12:03:04' });
    expect(createNoiseFilter()('log 2024-05-01 12:03:04 ok')).to.equal('log # ok');
  });
});

describe('noise in arguments (issue 24 #7) and bookkeeping arguments (issue 18 #5)', () => {
  const start = 1_794_474_000_000;
  const signature = (tool: string, args: unknown, at = start, options = resolveOptions()) => callSignature(tool, args, options.tool(tool), at);

  it("the call's own wall-clock stamp is noise: epoch ms, epoch s, ISO, within ten minutes of its start", () => {
    expect(signature('get_invoice', { invoice: 'INV-2041', timestamp: start }, start)).to.equal(signature('get_invoice', { invoice: 'INV-2041', timestamp: start + 5_000 }, start + 5_000));
    expect(signature('get_invoice', { invoice: 'INV-2041', sent: Math.floor(start / 1000) })).to.equal(signature('get_invoice', { invoice: 'INV-2041', sent: Math.floor(start / 1000) + 3 }, start + 3_000));
    expect(signature('get_invoice', { invoice: 'INV-2041', client_time: new Date(start).toISOString() })).to.equal(signature('get_invoice', { invoice: 'INV-2041', client_time: new Date(start + 2_000).toISOString() }, start + 2_000));
    expect(signature('get_invoice', { invoice: 'INV-2041', timestamp: start })).to.not.equal(signature('get_invoice', { invoice: 'INV-2042', timestamp: start }));
  });

  it('a time that selects data stays: named like a selector (since, date, from), or far from the call', () => {
    expect(signature('list_events', { since: new Date(start - 60_000).toISOString() })).to.not.equal(signature('list_events', { since: new Date(start).toISOString() }, start + 60_000));
    expect(signature('check_slot', { time: '2025-11-02T10:00:00Z' })).to.not.equal(signature('check_slot', { time: '2025-11-02T14:00:00Z' }));
    expect(isCallClockStamp('2025-11-02', Date.parse('2025-11-02T00:01:00Z'))).to.equal(false);
    expect(isCallClockStamp(42, start)).to.equal(false);
  });

  it("Cline's task_progress (and thought, reasoning, explanation, intent) is not identity for well-known tools; a user's own tool keeps them", () => {
    const progress = (step: number) => ({ command: 'ls -la src', requires_approval: false, task_progress: `- [x] Read\n- [ ] Step ${step}` });
    expect(signature('execute_command', progress(1))).to.equal(signature('execute_command', progress(2)));
    expect(signature('read_file', { path: 'a.ts', reasoning: 'look at a' })).to.equal(signature('read_file', { path: 'a.ts', reasoning: 'check a again' }));
    expect(signature('think', { thought: 'plan A' })).to.not.equal(signature('think', { thought: 'plan B' }));
  });

  it("a shell tool's label is not identity: the `description` of gemini-cli's run_shell_command and opencode's bash, Codex's `justification`; a user's own tool keeps its description", () => {
    expect(signature('run_shell_command', { command: 'npm test', description: 'Run the tests' })).to.equal(signature('run_shell_command', { command: 'npm test', description: 'Run the tests again' }));
    expect(signature('bash', { command: 'npx vitest run', description: 'Run tests (attempt 2)' })).to.equal(signature('bash', { command: 'npx vitest run', description: 'Run tests (attempt 3)' }));
    expect(signature('shell', { command: ['npm', 'test'], justification: 'needs network' })).to.equal(signature('shell', { command: ['npm', 'test'], justification: 'retry with network' }));
    // What the command is, and where it runs, stay.
    expect(signature('run_shell_command', { command: 'npm test', directory: 'api' })).to.not.equal(signature('run_shell_command', { command: 'npm test', directory: 'web' }));
    expect(signature('bash', { command: 'npm test', description: 'x' })).to.not.equal(signature('bash', { command: 'npm run lint', description: 'x' }));
    expect(signature('create_ticket', { title: 'Login', description: 'fails on Safari' })).to.not.equal(signature('create_ticket', { title: 'Login', description: 'fails on Firefox' }));
  });

  it('bookkeepingArgs names your harness\'s own bookkeeping arguments for every tool, and is checked at construction', () => {
    const options = resolveOptions({ bookkeepingArgs: ['plan'] });
    expect(signature('lookup_order', { id: 'W1', plan: 'first' }, start, options)).to.equal(signature('lookup_order', { id: 'W1', plan: 'second' }, start, options));
    expect(signature('lookup_order', { id: 'W1', plan: 'first' })).to.not.equal(signature('lookup_order', { id: 'W1', plan: 'second' }));
    expect(() => resolveOptions({ bookkeepingArgs: 'plan' as unknown as string[] })).to.throw(LoopGuardConfigError, /bookkeepingArgs/);
  });
});

/**
 * The alternatives of a regular expression's source whose first token is an unbounded repetition
 * not held to a place by `\\b` or a lookbehind (a leading lookahead is read for its own first token).
 */
function unanchoredStarts(source: string): string[] {
  const found: string[] = [];
  for (const alternative of topLevelAlternatives(source)) {
    if (alternative.startsWith('\\b') || alternative.startsWith('(?<=') || alternative.startsWith('(?<!')) continue;
    if (alternative.startsWith('(?=') || alternative.startsWith('(?!') || alternative.startsWith('(?:') || alternative.startsWith('(')) {
      const close = closingParenthesis(alternative, 0);
      const inner = alternative.slice(alternative.startsWith('(?') ? 3 : 1, close);
      const quantified = /^(?:[+*]|\{\d+,\})/.test(alternative.slice(close + 1));
      if (quantified) found.push(alternative);
      else found.push(...unanchoredStarts(inner));
      continue;
    }
    const atom = /^(?:\\.|\[(?:\\.|[^\]])*\]|.)/.exec(alternative)![0];
    if (/^(?:[+*]|\{\d+,\})/.test(alternative.slice(atom.length))) found.push(alternative);
  }
  return found;
}

/** The source's alternatives at the top level (not inside parentheses or a class). */
function topLevelAlternatives(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(source, i);
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      parts.push(source.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(source.slice(from));
  return parts;
}

function classEnd(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === ']') return i;
  }
  return source.length;
}

function closingParenthesis(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(source, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return source.length;
}
