/**
 * What in a tool's *result* is noise: values that change on every response without the
 * response saying anything new (document 002, "hashing over nondeterministic fields"; issue
 * 24 #1). `4 passed, 1 failed in 1.53s` re-run with no edit is the same outcome as `… in
 * 1.61s`; a search whose per-hit `score` jitters returns the same documents. Left in, every
 * re-run looks new and the most common coding-agent loop is never caught.
 *
 * The rules are applied to the result's text (a plain string, or the JSON.stringify text of
 * a structured result) in one pass by createNoiseFilter (rule families merged in text order), before hashing.
 * When a text holds any of these, rules of `=` (pytest centres its summary line in one whose
 * length follows the duration's) are shortened to `==` too.
 * Matches are replaced by a fixed mark (`#` inside text, `0` / `"#"` for a JSON member), so
 * the JSON stays valid and item-level novelty still finds each item's range.
 *
 * Each rule is narrow on purpose: a meaningful value that merely looks like noise must still
 * count as new (every unclear case leans toward "new fact", document 000). So:
 * - a date without a time of day (`2025-03-14`) is data, never noise;
 * - an ISO time or a UUID that is a JSON field's whole value (`"start": "2025-…T10:00Z"`,
 *   `"id": "3f2…"`) is data unless the field's name says clock or request id: only when
 *   embedded in text (a log line, an error message) is it noise;
 * - a relevance score is noise only as a fractional number under a score-like name
 *   (`"score": 3` in a game result stays);
 * - a number is a duration only with a time unit (`1.53s`, `12ms`, `in 3 seconds`).
 * Per tool: `tools[name].resultNoise: false` turns the rules off (a benchmark tool whose
 * timings are the answer), `tools[name].resultNoisePatterns` adds the tool's own.
 */

/** JSON member names whose numeric (or short string) value is a duration. */
export const DURATION_FIELD_PATTERN =
  '(?:took|took_?ms|tookMs|elapsed|elapsed_?(?:ms|time|seconds|sec)|elapsed(?:Ms|Time|Seconds)|duration|duration_?(?:ms|seconds|sec|s)|duration(?:Ms|Seconds)|latency|latency_?ms|latencyMs|' +
  '(?:execution|exec|response|query|processing|run|wall|cpu|render|search|total)_?[tT]ime(?:_?(?:ms|Ms|in_millis|seconds|sec|s))?|time_?(?:ms|taken|elapsed|spent)|timeTaken|runtime(?:_?ms)?|' +
  // A process's uptime ticks between two looks at the same state, as docker ps's `Up 3 minutes` (AGO below).
  'uptime(?:_?(?:ms|seconds|secs|sec|s|in_seconds|in_millis))?|uptime(?:Ms|Seconds|InSeconds|Millis)|up_?[tT]ime)';

/** JSON member names whose fractional value is a relevance score that jitters between calls. */
export const SCORE_FIELD_PATTERN = '(?:_?score|max_?score|maxScore|relevance(?:_?score)?|relevanceScore|similarity(?:_?score)?|rank_?score|confidence|_?distance|certainty)';

/** JSON member names whose value is the response's own clock (ISO text or epoch seconds/ms). */
export const CLOCK_FIELD_PATTERN =
  '(?:timestamp|ts|now|date|server_?time|serverTime|current_?time|currentTime|response_?time|responded_?at|served_?at|generated_?at|generatedAt|fetched_?at|fetchedAt|retrieved_?at|retrievedAt|checked_?at|checkedAt|as_of|asOf|last_?checked)';

/** JSON member names whose value identifies the response, not the data (W3C trace context, a CDN's or cloud's own request ids among them). */
export const RESPONSE_ID_FIELD_PATTERN = '(?:request_?id|requestI[dD]|req_?id|x-request-id|x-amzn-requestid|trace_?id|traceId|span_?id|spanId|correlation_?id|correlationId|etag|ETag|traceparent|tracestate|cf-ray|x-amz-cf-id|x-amz-id-2|x-amzn-trace-id|x-cloud-trace-context|x-vercel-id)';

/** An ISO 8601 date with a time of day (a date alone is data). */
export const ISO_DATETIME = '\\b\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d{1,9})?)?(?:Z|[+-]\\d{2}:?\\d{2})?';

/** A UUID (request ids, trace ids, temporary names). */
export const UUID = '\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** The number-led alternatives of {@link TEXT_DURATION}: `0m10.302s`; `1.53s`, `(0.00s)`, `1.234 s`; `12ms`. */
export const TEXT_DURATION_NUMBER_LED: readonly string[] = [
  '\\b\\d+m\\d+(?:\\.\\d+)?s\\b',
  '\\b\\d+\\.\\d+ ?(?:s|sec|secs|seconds)\\b',
  '\\b\\d+(?:\\.\\d+)? ?(?:ms|µs|us|ns)\\b',
];
/** The word-led part of {@link TEXT_DURATION}: any number with a time unit after `in`, `took`, `after`, `elapsed`, `estimated` (jest's `Time: 1.5 s, estimated 2 s`, from the last run's time), `Time:`. */
export const TEXT_DURATION_WORD_LED = '\\b(?:in|took|after|elapsed|estimated|[tT]ime:)\\s+\\d+(?:\\.\\d+)? ?(?:s|sec|secs|seconds|m|min|minutes?)\\b';
/**
 * A duration in text: a fractional number of seconds (`1.53s`, go's `(0.00s)`, jest's
 * `1.234 s`), milli/micro/nanoseconds (`12ms`, mocha's `(12ms)`), `0m10.302s`, or any number
 * with a time unit after `in`, `took`, `after`, `elapsed`, `estimated`, `Time:` (`in 3 seconds`).
 */
export const TEXT_DURATION = `${TEXT_DURATION_NUMBER_LED.join('|')}|${TEXT_DURATION_WORD_LED}`;

/**
 * What comes before a request or trace id written into text (`request id: `, `X-Request-Id=`, `trace_id `); the id is the 6+ word characters, `-` or `:` after it (GitHub's `CA1F:1E4D:5B7B8:…`).
 * One `\\s*` per run of spaces (`\\s*(?:[:=]\\s*)?`): `\\s*[:=]?\\s*` split a long run every way (77 KB: 8.4 s).
 */
export const TEXT_REQUEST_ID_PREFIX = '\\b(?:[rR]equest|REQUEST|[tT]race|TRACE|[cC]orrelation|req)[-_ ]?(?:[iI][dD])\\b"?\'?\\s*(?:[:=]\\s*)?"?\'?';

/**
 * Noise a few tools print in a shape of their own, each with a literal every one of its
 * matches holds (the filter looks for the literal before it runs the pattern):
 * - names the runtime makes up for one process or run: pytest's base temporary directory
 *   (`/tmp/pytest-of-root/pytest-3`, one higher on every run: Sphinx's test header prints it),
 *   a Python object's address in its repr (`<Column object at 0x7f756da73710>`), a `tempfile`
 *   name (`/tmp/tmpo1apzkgx`: `tmp` and eight of `[a-z0-9_]`);
 * - test runners' random seeds, new on every run: SymPy's `random seed: 58185801` with `hash
 *   randomization: on (PYTHONHASHSEED=2322889254)` (its test header), pytest-randomly's
 *   `Using --randomly-seed=3817263`;
 * - test runners' clocks and rates: vitest's `Start at  14:00:01` (followed by its `Duration`
 *   line), PHPUnit's `Time: 00:00.012, Memory: 6.00 MB`,
 *   minitest's `Finished in 0.0012s, 810.3 runs/s, 810.3 assertions/s`, node:test's
 *   `duration_ms 45.67`, tox's `(3.21=setup[1.02]+cmd[2.19] seconds)`.
 * - a response's own clock: HTTP's `Date:` header as `curl -I` / `curl -v` print it (`date: Sun, 06
 *   Dec 2026 09:10:00 GMT`, at a line's start or after curl's `< `), as the JSON member `date` is;
 * - process ids a runtime prints in its own notices: Node's warnings (`(node:48213) [DEP0040]
 *   DeprecationWarning: The \`punycode\` module is deprecated`, under every `npx` of 2025's
 *   toolchains), uvicorn's `Started server process [31000]`; npm's debug log named by the clock
 *   (`/root/.npm/_logs/2026-12-06T09_10_30_120Z-debug-0.log`);
 * - progress bars' clocks and rates: tqdm's `[00:03<00:00, 14.10it/s]` (`s/it`, `?it/s`, `MB/s`),
 *   pip's `3.4 MB/s eta 0:00:00`;
 * - a Jupyter kernel's execution count in the first frame of a traceback: IPython 8's `Cell In[7],
 *   line 1`, IPython 7's `<ipython-input-7-2b7e4c5f3d1a>`, one higher on every cell run, so the
 *   same cell failing the same way was a new answer every time it ran.
 * Only these exact shapes: a hex value elsewhere, a path under /tmp you chose, a time of day
 * anywhere else (`Departure Time: 08:45`, a `Due date:` or `Last-Modified:` in HTTP's format, a
 * meeting's `Start at 09:00:00`, a laptop's `Battery Time: 10 hours, Memory: 16 GB`), a speed with
 * no `eta` or bar clock (a speed test's `Download 5.2 MB/s`), are data; so are a length or an age in no shape of
 * AGO, DOCKER_UP or TABLE_AGE below (`"length": "5m"`, `aged 12 years`).
 */
/** HTTP's IMF-fixdate (RFC 9110 5.6.7), the only form a server sends today. */
const HTTP_DATE = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT';
/**
 * tqdm's `[elapsed<remaining, rate]` after its bar and count (`100%|██████████| 50/50 `), which
 * the lookbehind asks for so that `%|` is in every text it can match in: the gate's literal,
 * led by a rare character (`/s]` stops at every `/` of a URL: 0.66 µs on the bench's 2 KB JSON
 * result, `%|` 0.02). The rate: `14.10it/s`, `?it/s`, `31.2MB/s`, and `2.31s/it`, which reaches
 * this pass as `#/it` (the duration rule took `2.31s`). The percentage and the count stay.
 */
const TQDM_CLOCK_AND_RATE =
  '(?<=\\d%\\|[^|\\n]{0,120}\\| *\\d+(?:\\.\\d+)?[kMGT]?i?B?/\\d+(?:\\.\\d+)?[kMGT]?i?B? )' +
  '\\[(?:\\d+:)?\\d{2}:\\d{2}<(?:(?:\\d+:)?\\d{2}:\\d{2}|\\?), *(?:(?:\\d+(?:\\.\\d+)?|\\?) ?(?:it|[kMGT]?i?B)/s|(?:\\d+(?:\\.\\d+)?s|#)/it)\\]';

/**
 * IPython's execution count where a traceback names the cell that ran: the line right after
 * `Traceback (most recent call last)` (the only frame whose count moves when a cell is re-run;
 * a function defined in an earlier cell keeps that cell's count). The gate's literal is the
 * header, led by a rare `(`: `Cell In[` stops at every capital C (1.0–1.2 µs on a 2 KB HTML
 * list of "Customer Case" links, against 0.06 for the header).
 */
const IPYTHON_EXECUTION_COUNT = '(?<=Traceback \\(most recent call last\\)(?:\\n|\\\\n)(?:Cell In\\[|<ipython-input-))\\d+(?=\\], line \\d|-[0-9a-f]{12}>)';

/** Any letter case: an HTTP/1.1 server writes `CF-RAY`, `Age`; HTTP/2 lower case. */
function anyCase(name: string): string {
  return name.replace(/[a-z]/g, (letter) => `[${letter}${letter.toUpperCase()}]`);
}
/**
 * Response headers that name the one response or time it, in a header dump (`curl -i`, `-I`,
 * `-v`): W3C trace context, Cloudflare's `cf-ray`, CloudFront's and S3's ids, AWS X-Ray's and Google
 * Cloud's trace ids, Vercel's id, a cache's `age` and Fastly's `x-timer`, `server-timing` and the
 * upstream and runtime clocks, the rate limit's remaining count. The whole line, at a line's start
 * (or after curl -v's `< `); the gate's literal is the status line's `HTTP/`, so `Age: 41` in a
 * patient record is data.
 */
const HTTP_PER_RESPONSE_HEADER =
  `(?<=^|\\n|\\\\n|< )(?:${['traceparent', 'tracestate', 'cf-ray', 'x-amz-cf-id', 'x-amz-id-2', 'x-amzn-trace-id', 'x-cloud-trace-context', 'x-vercel-id',
    'age', 'x-timer', 'server-timing', 'x-runtime', 'x-response-time', 'x-envoy-upstream-service-time', 'x-ratelimit-remaining', 'x-ratelimit-used', 'ratelimit-remaining']
    .map(anyCase).join('|')}):[ \\t]*[^\\n\\\\]*`;
/** A raw or JSON-escaped line break, or a carriage return (a progress meter's rows overwrite each other). */
const ROW_BREAK = '(?:\\r|\\n|\\\\r|\\\\n)';
/** A size as curl's meter writes it: `1234`, `1234k`, `12.3M`. */
const METER_SIZE = '\\d+(?:\\.\\d+)?[kMGTP]?';
/** A clock of curl's meter: `--:--:--` or `0:00:01`. */
const METER_CLOCK = '(?:--:--:--|\\d+:\\d{2}:\\d{2})';
/**
 * The rows of curl's progress meter, which it writes to stderr whenever its output is not a
 * terminal, as under every agent's shell unless the command says `-s`: percentages, sizes, average
 * speeds, three clocks and the current speed, one row a second. The same request answered the same
 * way leaves different speeds and clocks every time. The rows in a run (between `\r` or line breaks)
 * become one `#`; the header stays, and so does the body, which is the answer. A row is its own
 * context (twelve columns, the last four three clocks and a speed), wherever the body put it.
 * A row starts after neither a digit nor a space, and its leading spaces are bounded: a leading
 * ` *` made a long run of spaces quadratic (40,000 spaces after `% Xferd`: 0.75 s).
 */
const CURL_METER_ROW = `(?<![\\d ]) {0,3}\\d{1,3} +${METER_SIZE} +\\d{1,3} +${METER_SIZE} +\\d{1,3} +${METER_SIZE} +${METER_SIZE} +${METER_SIZE} +${METER_CLOCK} +${METER_CLOCK} +${METER_CLOCK} +${METER_SIZE}`;
const CURL_METER_ROWS = `${CURL_METER_ROW}(?:${ROW_BREAK}+${CURL_METER_ROW})*`;
/**
 * BuildKit's plain progress (`docker build` when its output is not a terminal): each line a RUN
 * step prints is led by the step's number and the seconds since the step started (`#9 0.512 npm
 * ERR! code ERESOLVE`), and the excerpt of a failed step repeats those lines with the seconds alone
 * after its ` > [4/6] RUN npm ci:` header. The same build failing the same way moves only these.
 * Only in a text that holds a step's header (the pass's literal `] RUN `): there every line that
 * starts with seconds is one of these, as a step's own lines all start with `#N`.
 */
const BUILDKIT_SECONDS = '(?<=(?:^|\\n|\\\\n)(?:#\\d{1,4} )?)\\d{1,6}\\.\\d{3}(?= )';
/** `systemctl status`'s `Memory: 12.3M (peak: 14.1M)` and `CPU: 3min 1.234s` lines: the values, at a line's start. */
const SYSTEMD_USAGE = '(?<=(?:^|\\n|\\\\n) {0,12}(?:Memory|CPU): )[^\\n\\\\]*';

export const SHAPED_NOISE: ReadonlyArray<{ readonly literal: string; readonly pattern: string }> = [
  // Bounded (a user name, a run number): `[\\w.-]+` read from every `pytest-of-` to the end of a
  // text of many of them (180 KB: 3.4 s).
  { literal: '-of-', pattern: 'pytest-of-[\\w.-]{1,64}/pytest-\\d{1,9}' },
  { literal: '0x', pattern: ' at 0x[0-9a-fA-F]{6,16}>' },
  { literal: '/tmp', pattern: '/tmp/tmp[a-z0-9_]{8}\\b' },
  { literal: 'PYTHONHASHSEED=', pattern: 'random seed: +\\d+(?:\\n|\\\\n)hash randomization: on \\(PYTHONHASHSEED=\\d+\\)' },
  // The header line pytest-randomly prints, `Using --randomly-seed=3817263` (a seed passed on the
  // command line is the user's and the same on every run): `y-seed=` cost 1.17 µs on 2 KB of prose.
  { literal: 'Using --', pattern: '(?<=Using )--randomly-seed=\\d+' },
  { literal: 'Start at', pattern: '\\bStart at +\\d{2}:\\d{2}:\\d{2}(?=(?:\\n|\\\\n) +Duration )' },
  { literal: 'Memory: ', pattern: '\\bTime: \\d{2}:\\d{2}(?:\\.\\d{3})?, Memory: \\d+\\.\\d{2} MB\\b' },
  { literal: 'Finished ', pattern: 'Finished [^,\\n"]{1,40}, \\d+(?:\\.\\d+)? runs/s, \\d+(?:\\.\\d+)? assertions/s' },
  { literal: '_ms', pattern: '\\bduration_ms:? \\d+(?:\\.\\d+)?' },
  // `\\b` first: a match cannot start inside a run of digits, which `\\d+` alone made quadratic
  // (the shared pass took 3.7 s on 80,000 digits next to any literal; now linear).
  { literal: '=setup[', pattern: '\\b\\d+(?:\\.\\d+)?=setup\\[\\d+(?:\\.\\d+)?\\]\\+cmd\\[\\d+(?:\\.\\d+)?\\]' },
  // Literals led by a rare character (create-noise-filter.ts): a search for ` GMT` would stop at every space.
  { literal: 'GMT', pattern: `(?<=^|\\n|\\\\n|< )[dD]ate: ${HTTP_DATE}` },
  { literal: 'HTTP/', pattern: HTTP_PER_RESPONSE_HEADER },
  { literal: '%|', pattern: TQDM_CLOCK_AND_RATE },
  { literal: 'Warning:', pattern: '\\(node:\\d+\\)(?= (?:\\[\\w+\\] )?\\w*Warning:)' },
  { literal: 'Started server process [', pattern: '(?<=Started server process \\[)\\d+(?=\\])' },
  { literal: 'Finished server process [', pattern: '(?<=Finished server process \\[)\\d+(?=\\])' },
  { literal: 'Z-debug-', pattern: '_logs/\\d{4}-\\d{2}-\\d{2}T\\d{2}_\\d{2}_\\d{2}_\\d{3}Z-debug-\\d+\\.log' },
  { literal: 'B/s eta', pattern: '\\b\\d+(?:\\.\\d+)? [kMG]?i?B/s eta (?:\\d+:)?\\d{1,2}:\\d{2}\\b' },
  { literal: '(most recent call last)', pattern: IPYTHON_EXECUTION_COUNT },
  // systemctl status: the memory and CPU time a unit has used so far, which grow between two looks at a unit that stays as it is.
  { literal: 'Loaded: ', pattern: SYSTEMD_USAGE },
];

/**
 * Shaped noise with a pass of its own behind its own literal, for rules whose pattern starts with a
 * lookaround, where the shared alternation's search cannot skip ahead: as alternatives there
 * they cost every text the shared gate lets in about half again (57 → 85 µs on 2 KB of prose
 * holding `GMT`, tsx probe). Literals led by a rare character, as above: all five
 * searches together cost about 0.4 µs on a 2 KB text that holds none (`Randomized with seed `
 * alone 0.2 µs on JSON text full of capital R's, `zed with seed ` within noise).
 */
export const SHAPED_NOISE_OWN_PASS: ReadonlyArray<{ readonly literal: string; readonly pattern: string }> = [
  // MSBuild's summary after `dotnet build` (`    1 Error(s)`, a blank line, `Time Elapsed 00:00:02.10`;
  // a build under ten hours): right after its error count, so a race's `Time Elapsed 02:11:09` stays.
  { literal: 'Elapsed 0', pattern: '(?<=Error\\(s\\)(?:\\n|\\\\n|\\r){1,4}Time Elapsed )\\d{2}:\\d{2}:\\d{2}\\.\\d{2}' },
  // RSpec's and minitest's seeds, drawn on every run: `Randomized with seed 31415` (RSpec, twice),
  // `Run options: --seed 31415` (minitest and `bin/rails test`, after any other options).
  { literal: 'zed with seed ', pattern: '(?<=Randomized with seed )\\d+' },
  { literal: '--seed ', pattern: '(?<=Run options: (?:[^\\n\\\\ ]{1,200} ){0,8}--seed )\\d+' },
  { literal: '% Xferd', pattern: CURL_METER_ROWS },
  // Every BuildKit text with timed lines holds the header of the RUN step that printed them, or of its excerpt.
  { literal: '] RUN ', pattern: BUILDKIT_SECONDS },
];
/**
 * Ages, which tick between two looks at the same state: a time before now (`3 minutes ago`,
 * gh's `about 1 hour ago`, systemd's `5min 3s ago` and `2 days 4h ago`, kubectl's restart
 * `(2m30s ago)`, whose `2m30s` the duration rule took first and left as `#`), docker ps's `Up 3
 * minutes`, kubectl get's AGE column. Without
 * them `kubectl get pods` re-run at once on a pod stuck in CrashLoopBackOff, or `docker ps` on a
 * container that never turns healthy, answers "new" on every call, with no end. An uptime that
 * drops is no longer a restart by itself; Docker's `Restarting (1)` and kubectl's RESTARTS count
 * still are. Each is a pass of its own with its own exact gate (create-noise-filter.ts).
 */
export const AGO =
  '(?:\\b(?:(?:[aA]bout|[oO]ver|[aA]lmost|[lL]ess than) )?(?:\\d+(?:[smhdy](?:\\d+[smhd])?|min| (?:second|minute|hour|day|week|month|year)s?)(?: \\d+(?:min|[smh]| (?:day|week|month)s?))?|(?:an?|a few) (?:second|minute|hour|day|week|month|year)s?)|#) ago\\b';
/** docker ps's STATUS: `Up 3 minutes`, `Up About an hour`, `Up Less than a second`. */
export const DOCKER_UP = '\\bUp (?:\\d+|About an?|Less than an?) (?:second|minute|hour|day|week|month|year)s?\\b';
/**
 * kubectl get's AGE column (its HumanDuration: `45s`, `6m10s`, `95m`, `3h5m`, `3d4h`, `2y30d`;
 * `#` where the duration rule already took `6m10s`): an age that is the last field of a
 * column-aligned line (three spaces before it, the line's or the string's end after it), only
 * in a text whose header names the column (TABLE_AGE_HEADER).
 */
export const TABLE_AGE = '(?<=   )(?:\\d+[smhdy](?:\\d+[smhd])?|#)(?=\\n|\\\\n|"|$)';
export const TABLE_AGE_HEADER = '\\bAGE(?=\\n|\\\\n| {2,}|$)';

/**
 * Members of a write's answer that name the record it made or touched, not what it did: the
 * new ticket's `id` and `number`, its `url`, `created_at`, a Slack message's `ts`. Only a tool
 * that writes (policy.ts: declared, annotated, or named with a write verb) has them removed,
 * and only in JSON: `create_ticket` called again with the same arguments, answering the same
 * but for the new ticket's id, is the same outcome — a duplicate made, not a new fact — so the
 * third identical call is refused as a confirmed repeat (document 003) instead of making
 * tickets to the end of the budget. In a read's answer the same members are data.
 */
export const WRITE_RECORD_IDENTITY_FIELD_PATTERN =
  '(?:id|uuid|guid|number|ts|node_id|[A-Za-z]+_id|[a-z]+(?:Id|ID|Uuid)|created(?:_?[aA]t)?|updated_?[aA]t|modified_?[aA]t|inserted_?[aA]t|(?:html_|api_|web_)?url|href|permalink|self|link|etag)';
