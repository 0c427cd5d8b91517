import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_POLICY, EXAMPLES_DIR } from '../replay/replay-test-helpers.js';
import { runCli, type CliResult } from './cli-test-helpers.js';

/**
 * The house rule for every option of every command, through the real CLI process: bad input is
 * exit 2 and one line on stderr that starts with the command's name and names the flag (or the
 * policy file and its field), never a stack trace, and nothing on stdout. Each row was found
 * by an audit of the options; the ones marked "was:" were wrong before.
 */
interface BadInput {
  args: string[];
  /** Each must appear in the first stderr line. */
  names: string[];
  env?: Record<string, string>;
}

const TRANSCRIPT = join(EXAMPLES_DIR, 'pagination.jsonl');
const folder = mkdtempSync(join(tmpdir(), 'loopguard-cli-options-'));
const NOT_JSON = join(folder, 'not-json.json');
const BAD_FIELD = join(folder, 'bad-field.json');
const MISSING = join(folder, 'missing.json');
writeFileSync(NOT_JSON, '{ "profile": ');
writeFileSync(BAD_FIELD, JSON.stringify({ maxRounds: -3 }));
const BUSINESS_KEYS = join(folder, 'business-keys.json');
writeFileSync(BUSINESS_KEYS, JSON.stringify({ idempotentWrites: { refund: { key: ['order'] } } }));
const FAIL_CLOSED = join(folder, 'fail-closed.json');
writeFileSync(FAIL_CLOSED, JSON.stringify({ storeFailure: { calls: 'closed' } }));
const OWNED_RUNS = join(folder, 'owned-runs.json');
writeFileSync(OWNED_RUNS, JSON.stringify({ ownedRuns: true }));
const BAD_BUSINESS_KEY = join(folder, 'bad-business-key.json');
writeFileSync(BAD_BUSINESS_KEY, JSON.stringify({ idempotentWrites: { refund: { key: [] } } }));
const BAD_RUN_LIMIT = join(folder, 'bad-run-limit.json');
writeFileSync(BAD_RUN_LIMIT, JSON.stringify({ maxOpenRuns: 0 }));
const MCP_SERVER = ['--', process.execPath, '-e', '0'];
// Unroutable (TEST-NET-1): a row that wrongly got as far as connecting would time out, not pass.
const REDIS = 'redis://192.0.2.1:6379';

const rows: BadInput[] = [
  // replay
  { args: ['replay', '--bogus', TRANSCRIPT], names: ['loopguard replay:', '--bogus'] },
  { args: ['replay', '--format', 'pdf', TRANSCRIPT], names: ['loopguard replay:', '--format'] },
  { args: ['replay', '--profile', 'x', TRANSCRIPT], names: ['loopguard replay:', '--profile'] },
  { args: ['replay', '--key-prefix', 'p', TRANSCRIPT], names: ['loopguard replay:', '--key-prefix'] },
  { args: ['replay', '--policy', MISSING, TRANSCRIPT], names: ['loopguard replay:', MISSING, 'ENOENT'] },
  { args: ['replay', '--policy', NOT_JSON, TRANSCRIPT], names: ['loopguard replay:', NOT_JSON, 'not valid JSON'] },
  { args: ['replay', '--policy', BAD_FIELD, TRANSCRIPT], names: ['loopguard replay:', BAD_FIELD, 'maxRounds'] },
  // runs
  { args: ['runs', '--key-prefix', 'p'], names: ['loopguard runs:', '--redis'] },
  { args: ['runs', '--redis', 'localhost:6379'], names: ['loopguard runs:', '--redis', 'redis://'] },
  { args: ['runs', '--redis', 'http://localhost:6379'], names: ['loopguard runs:', '--redis'] },
  { args: ['runs', '--redis', 'redis://[::1'], names: ['loopguard runs:', '--redis'] },
  { args: ['runs', '--redis', REDIS, '--limit', 'abc'], names: ['loopguard runs:', '--limit', '"abc"'] },
  { args: ['runs', '--redis', REDIS, '--limit', '-1'], names: ['loopguard runs:', '--limit', '"-1"'] },
  { args: ['runs', '--redis', REDIS, '--limit', '2.5'], names: ['loopguard runs:', '--limit', '"2.5"'] },
  { args: ['runs', '--redis', REDIS, '--limit', '0'], names: ['loopguard runs:', '--limit', '"0"'] },
  { args: ['runs', '--redis', REDIS, '--timeout-ms', '1e3'], names: ['loopguard runs:', '--timeout-ms', '"1e3"'] },
  { args: ['runs', '--redis', REDIS, '--timeout-ms', '2147483648'], names: ['loopguard runs:', '--timeout-ms', '2147483647'] },
  { args: ['runs', '--redis', REDIS, '--key-prefix', ''], names: ['loopguard runs:', '--key-prefix'] },
  { args: ['runs', '--redis', REDIS, '--key-prefix', 'a{b}'], names: ['loopguard runs:', '--key-prefix'] },
  { args: ['runs', '--redis', REDIS, '--format', 'yaml'], names: ['loopguard runs:', '--format'] },
  { args: ['runs', '--redis', REDIS, '--bogus'], names: ['loopguard runs:', '--bogus'] },
  { args: ['runs', '--redis', REDIS, '--policy', BAD_FIELD, 'some-run'], names: ['loopguard runs:', BAD_FIELD, 'maxRounds'] },
  // serve (every row must be refused before the server binds: a row that binds is killed and fails)
  { args: ['serve', '--port', 'abc'], names: ['loopguard serve:', '--port', '0 to 65535', '"abc"'] },
  { args: ['serve', '--port', '-1'], names: ['loopguard serve:', '--port', '"-1"'] },
  { args: ['serve', '--port', '80.5'], names: ['loopguard serve:', '--port', '"80.5"'] },
  // was: "cannot start: port: …", naming the server's option, not the flag
  { args: ['serve', '--port', '65536'], names: ['loopguard serve:', '--port', '"65536"'] },
  // was: "cannot start: host: …"
  { args: ['serve', '--host', ''], names: ['loopguard serve:', '--host'] },
  // was: exit 1, "getaddrinfo ENOTFOUND"
  { args: ['serve', '--host', '  '], names: ['loopguard serve:', '--host'] },
  // was: ignored, the server kept runs in memory with nothing said
  { args: ['serve', '--port', '0', '--key-prefix', 'fleet'], names: ['loopguard serve:', '--key-prefix', 'needs --redis'] },
  { args: ['serve', '--redis', 'localhost:6379'], names: ['loopguard serve:', '--redis', 'redis://'] },
  { args: ['serve', '--redis', 'http://localhost:6379'], names: ['loopguard serve:', '--redis'] },
  // was: "--redis: Invalid URL"
  { args: ['serve', '--redis', 'redis://localhost:99999'], names: ['loopguard serve:', '--redis', 'port 99999'] },
  // was: accepted, database NaN
  { args: ['serve', '--redis', 'redis://localhost:6379/abc'], names: ['loopguard serve:', '--redis', 'database'] },
  { args: ['serve', '--redis', REDIS, '--key-prefix', 'a{b}'], names: ['loopguard serve:', '--key-prefix'] },
  // was: accepted, and no token at all was required
  { args: ['serve', '--port', '0', '--auth-token', ''], names: ['loopguard serve:', '--auth-token'] },
  { args: ['serve', '--port', '0', '--auth-token', 'short'], names: ['loopguard serve:', '--auth-token', '16'] },
  { args: ['serve', '--port', '0'], names: ['loopguard serve:', 'LOOPGUARD_SERVE_TOKEN', '16'], env: { LOOPGUARD_SERVE_TOKEN: 'short' } },
  { args: ['serve', '--max-body-bytes', '0'], names: ['loopguard serve:', '--max-body-bytes', '"0"'] },
  { args: ['serve', '--max-spans', 'many'], names: ['loopguard serve:', '--max-spans', '"many"'] },
  { args: ['serve', '--max-concurrent', '1.5'], names: ['loopguard serve:', '--max-concurrent', '"1.5"'] },
  { args: ['serve', '--shutdown-timeout-ms', '-5'], names: ['loopguard serve:', '--shutdown-timeout-ms', '"-5"'] },
  // was: accepted, a drain timer that fires after 1 ms
  { args: ['serve', '--port', '0', '--shutdown-timeout-ms', '99999999999'], names: ['loopguard serve:', '--shutdown-timeout-ms', '2147483647'] },
  { args: ['serve', '--policy', MISSING], names: ['loopguard serve:', MISSING, 'ENOENT'] },
  { args: ['serve', '--policy', NOT_JSON], names: ['loopguard serve:', NOT_JSON, 'not valid JSON'] },
  { args: ['serve', '--policy', BAD_FIELD], names: ['loopguard serve:', BAD_FIELD, 'maxRounds'] },
  // serve takes business keys and store options from its policy, but only with a store to keep them in
  { args: ['serve', '--port', '0', '--policy', BUSINESS_KEYS], names: ['loopguard serve:', BUSINESS_KEYS, 'idempotentWrites', 'needs --redis'] },
  { args: ['serve', '--port', '0', '--policy', FAIL_CLOSED], names: ['loopguard serve:', FAIL_CLOSED, 'storeFailure', 'needs --redis'] },
  { args: ['serve', '--redis', REDIS, '--policy', OWNED_RUNS], names: ['loopguard serve:', OWNED_RUNS, 'ownedRuns', 'replica'] },
  { args: ['serve', '--redis', REDIS, '--policy', BAD_BUSINESS_KEY], names: ['loopguard serve:', BAD_BUSINESS_KEY, 'idempotentWrites.refund.key'] },
  { args: ['serve', '--port', '0', '--policy', BAD_RUN_LIMIT], names: ['loopguard serve:', BAD_RUN_LIMIT, 'maxOpenRuns'] },
  // replay still refuses them: it never runs a tool
  { args: ['replay', '--policy', BUSINESS_KEYS, TRANSCRIPT], names: ['loopguard replay:', BUSINESS_KEYS, 'idempotentWrites', 'never runs a tool'] },
  { args: ['serve', '--bogus'], names: ['loopguard serve:', '--bogus'] },
  // mcp-proxy
  { args: ['mcp-proxy', '--round-gap-ms', 'abc', ...MCP_SERVER], names: ['loopguard mcp-proxy:', '--round-gap-ms', '"abc"'] },
  { args: ['mcp-proxy', '--round-gap-ms', '-1', ...MCP_SERVER], names: ['loopguard mcp-proxy:', '--round-gap-ms', '"-1"'] },
  // was: accepted
  { args: ['mcp-proxy', '--round-gap-ms', '1.5', ...MCP_SERVER], names: ['loopguard mcp-proxy:', '--round-gap-ms', '"1.5"'] },
  // was: accepted, a gap timer that fires after 1 ms
  { args: ['mcp-proxy', '--round-gap-ms', '1e12', ...MCP_SERVER], names: ['loopguard mcp-proxy:', '--round-gap-ms', '"1e12"'] },
  { args: ['mcp-proxy', '--run-gap-ms', '10m', ...MCP_SERVER], names: ['loopguard mcp-proxy:', '--run-gap-ms', '"10m"'] },
  { args: ['mcp-proxy', '--run-gap-ms', '-1', ...MCP_SERVER], names: ['loopguard mcp-proxy:', '--run-gap-ms', '"-1"'] },
  { args: ['mcp-proxy', '--redis', REDIS, ...MCP_SERVER], names: ['loopguard mcp-proxy:', '--redis'] },
  { args: ['mcp-proxy', '--policy', MISSING, ...MCP_SERVER], names: ['loopguard mcp-proxy:', MISSING, 'ENOENT'] },
  { args: ['mcp-proxy', '--policy', BAD_FIELD, ...MCP_SERVER], names: ['loopguard mcp-proxy:', BAD_FIELD, 'maxRounds'] },
  // was: "replay never runs a tool, so there is no write to deduplicate", said by a proxy that runs tools
  { args: ['mcp-proxy', '--policy', BUSINESS_KEYS, ...MCP_SERVER], names: ['loopguard mcp-proxy:', BUSINESS_KEYS, 'idempotentWrites', 'no shared store', 'guardMcpClient'] },
  { args: ['mcp-proxy', '--bogus', ...MCP_SERVER], names: ['loopguard mcp-proxy:', '--bogus'] },
  { args: ['mcp-proxy'], names: ['loopguard mcp-proxy:', 'command'] },
  // no command
  { args: ['bogus'], names: ['loopguard:', "'bogus'"] },
];

/** Commander's hint after its own usage errors: the one second line allowed. */
const USAGE_HINT = '(run `loopguard <command> --help` for usage)';

/** Spawns at most this many CLIs at once: the machine is shared, and each is a tsx start-up. */
const CONCURRENCY = 3;

describe('every CLI option refuses bad input: exit 2, one line naming the flag (child processes)', function () {
  this.timeout(180_000);
  const results = new Map<BadInput, CliResult>();

  before(async () => {
    const queue = [...rows];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
          results.set(row, await runCli(row.args, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: '', LOOPGUARD_SERVE_TOKEN: '', ...row.env }, timeoutMs: 20_000 }));
        }
      }),
    );
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  for (const row of rows) {
    const env = Object.entries(row.env ?? {}).map(([name, value]) => `${name}=${value} `).join('');
    it(`${env}loopguard ${row.args.map((arg) => (arg.trim() === '' ? JSON.stringify(arg) : arg)).join(' ').replaceAll(folder, '<tmp>')}`, () => {
      const result = results.get(row)!;
      const lines = result.stderr.split('\n').filter((line) => line !== '');
      expect(result.code, `exit code (null: killed, it did not refuse); stderr: ${result.stderr}`).to.equal(2);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.not.match(/\n\s+at /, 'no stack trace');
      expect(lines[0]).to.match(/^loopguard(?: [a-z-]+)?: /);
      for (const name of row.names) expect(lines[0]).to.include(name);
      expect(lines.slice(1).filter((line) => line !== USAGE_HINT), 'one line (and commander\'s usage hint)').to.deep.equal([]);
    });
  }
});

describe('good options still work (child processes)', function () {
  this.timeout(60_000);

  it('replay with a policy file: exit 0, a report, nothing on stderr', async () => {
    const result = await runCli(['replay', '--policy', EXAMPLE_POLICY, '--format', 'json', TRANSCRIPT]);
    expect(result.stderr).to.equal('');
    expect(result.code).to.equal(0);
    expect(JSON.parse(result.stdout)).to.include({ run: 'pagination', calls: 9 });
  });

  it('serve with every numeric option at a legal edge starts, listens, and exits 0 on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/cli/run-cli.ts', 'serve', '--host', '127.0.0.1', '--port', '0', '--policy', EXAMPLE_POLICY,
        '--max-body-bytes', '1', '--max-spans', '1', '--max-concurrent', '1', '--shutdown-timeout-ms', '2147483647', '--auth-token', 'x'.repeat(16)],
      { env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', LOOPGUARD_SERVE_TOKEN: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(`code ${code}, signal ${signal}`)));
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/listening on http:\/\/127\.0\.0\.1:\d+/.test(stderr)) resolve();
      });
      void exited.then(() => reject(new Error(`serve exited before listening: ${stderr}`)));
    });
    expect(stderr).to.include('bearer token required');
    child.kill('SIGTERM');
    // SIGTERM as soon as the line is read: once answered by death by signal, the handlers came after the line.
    expect(await exited).to.equal('code 0, signal null');
  });

  it('mcp-proxy with --round-gap-ms 0, --run-gap-ms 0 and a policy runs the server and returns its exit code', async () => {
    const result = await runCli(['mcp-proxy', '--policy', EXAMPLE_POLICY, '--round-gap-ms', '0', '--run-gap-ms', '0', '--', process.execPath, '-e', 'process.exit(7)'], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: '' },
      timeoutMs: 20_000,
    });
    expect(result.code, result.stderr).to.equal(7);
  });
});
