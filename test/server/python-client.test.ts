import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startServeProcess, type ServeProcess } from './serve-process.js';

const EXAMPLE = fileURLToPath(new URL('../../clients/python/guarded_tool_loop.py', import.meta.url));
const CLIENT_DIR = fileURLToPath(new URL('../../clients/python/', import.meta.url));

describe('Python client (clients/python, standard library only) against a running loopguard serve', function () {
  this.timeout(60_000);
  let server: ServeProcess;

  before(async () => {
    if (spawnSync('python3', ['--version']).status !== 0) throw new Error('python3 is not installed: the Python client test runs the system python3');
    server = await startServeProcess(['--auth-token', 'python-test-token-0123456789']);
  });
  after(async () => {
    expect(await server.stop()).to.equal(0);
  });

  it('the example tool loop is refused, then stopped', () => {
    const example = (env: NodeJS.ProcessEnv) => spawnSync('python3', [EXAMPLE, server.url], { encoding: 'utf8', env: { ...process.env, LOOPGUARD_SERVE_TOKEN: '', ...env } });
    // Without the token every request is 401: the client says so, naming the status.
    const refusedEntry = example({});
    expect(refusedEntry.status).to.not.equal(0);
    expect(refusedEntry.stderr).to.contain('401 unauthorized');

    const wrapped = example({ LOOPGUARD_SERVE_TOKEN: 'python-test-token-0123456789' });
    expect(wrapped.stderr).to.equal('');
    expect(wrapped.status).to.equal(0);
    const lines = wrapped.stdout.trim().split('\n');
    expect(lines[0]).to.equal('round 1: search ran');
    const refused = lines.findIndex((line) => /search refuse \(repeat\./.test(line));
    const stopped = lines.findIndex((line) => line.startsWith('stopped at round'));
    expect(refused, wrapped.stdout).to.be.greaterThan(0);
    expect(stopped, wrapped.stdout).to.be.greaterThan(refused);
    expect(lines[stopped + 1]).to.match(/^message for the model: \S/);
  });

  it('context_compacted(): after the agent trims its messages, a file read before is read again (refused before it)', () => {
    const script = [
      'import sys',
      `sys.path.insert(0, ${JSON.stringify(CLIENT_DIR)})`,
      'from loopguard_client import LoopGuardClient',
      `run = LoopGuardClient(sys.argv[1], token="python-test-token-0123456789").run("python-compacted")`,
      'run.begin_round()',
      'first = run.claim("read_file", {"path": "app.py"}, effect="read")',
      'run.outcome(first, result="PORT = 8080")',
      'run.begin_round()',
      'print(run.claim("read_file", {"path": "app.py"}, effect="read").decision)',
      'run.context_compacted()',
      'run.begin_round()',
      'print(run.claim("read_file", {"path": "app.py"}, effect="read").decision)',
      'run.end()',
    ].join('\n');
    const result = spawnSync('python3', ['-c', script, server.url], { encoding: 'utf8' });
    expect(result.stderr).to.equal('');
    expect(result.stdout.trim().split('\n')).to.deep.equal(['refuse', 'allow']);
  });

  it('a result or arguments the server will not take (over --max-body-bytes), or a result that is not JSON, are still recorded, without raising in the agent', async () => {
    const small = await startServeProcess(['--max-body-bytes', '4096']);
    try {
      const script = [
        'import sys, datetime',
        `sys.path.insert(0, ${JSON.stringify(CLIENT_DIR)})`,
        'from loopguard_client import LoopGuardClient',
        'run = LoopGuardClient(sys.argv[1]).run("python-large-result")',
        'big = "line of a large log\\n" * 2000',
        'run.begin_round()',
        'for path in ("a.log", "b.log"):',
        '    d = run.claim("read_file", {"path": path}, effect="read")',
        '    print(run.outcome(d, result=big))',
        'd = run.claim("read_file", {"path": "c.log"}, effect="read")',
        'print(run.outcome(d, result={"modified": datetime.datetime(2026, 12, 5, 12, 0)}))',
        // Arguments over the limit (a whole file to write): claimed by digest, identity kept.
        'content = "x" * 70000',
        'first = run.claim("write_file", {"path": "big.txt", "content": content}, effect="write")',
        'second = run.claim("write_file", {"path": "big.txt", "content": content}, effect="write")',
        'other = run.claim("write_file", {"path": "big.txt", "content": content + "y"}, effect="write")',
        'print(first.decision, second.reason, other.decision)',
        'run.end()',
      ].join('\n');
      const result = spawnSync('python3', ['-c', script, small.url], { encoding: 'utf8' });
      // Before: LoopGuardError 413 from outcome() (the agent's loop crashed), then TypeError for the datetime.
      expect(result.stderr).to.equal('');
      expect(result.stdout.trim().split('\n')).to.deep.equal(['new', 'seen', 'new', 'allow repeat.in_flight allow']);
    } finally {
      expect(await small.stop()).to.equal(0);
    }
  });

  it('an answer that is not the decision API\'s (not HTTP, not JSON, cut short, fields missing) raises LoopGuardError, which the agent catches to fail open', async () => {
    // What a wrong port, a proxy's page or a replica killed mid-answer sends back. Before, these
    // escaped as BadStatusLine, JSONDecodeError, KeyError and IncompleteRead: an agent that
    // caught LoopGuardError around claim() (as the docs say, to run the tool anyway) crashed.
    const replies = [
      '-ERR unknown command\r\n',
      'HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 13\r\n\r\n<html></html>',
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n[]',
      'HTTP/1.1 502 Bad Gateway\r\ncontent-length: 100\r\n\r\nbad',
    ];
    const servers: Server[] = [];
    try {
      const urls: string[] = [];
      for (const reply of replies) {
        const fake = createServer((socket) => {
          socket.once('data', () => socket.end(reply));
          socket.on('error', () => undefined);
        });
        await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
        servers.push(fake);
        urls.push(`http://127.0.0.1:${(fake.address() as { port: number }).port}`);
      }
      const script = [
        'import sys',
        `sys.path.insert(0, ${JSON.stringify(CLIENT_DIR)})`,
        'from loopguard_client import LoopGuardClient, LoopGuardError',
        'for url in sys.argv[1:]:',
        '    run = LoopGuardClient(url, timeout=5).run("python-bad-answer")',
        '    for ask in (lambda: run.claim("search", {"q": "x"}), run.should_stop, run.begin_round):',
        '        try:',
        '            ask()',
        '            print("answered")',
        '        except LoopGuardError as problem:',
        '            print(problem.code)',
      ].join('\n');
      const { stdout, stderr } = await promisify(execFile)('python3', ['-c', script, ...urls], { encoding: 'utf8' });
      expect(stderr).to.equal('');
      const codes = stdout.trim().split('\n');
      expect(codes).to.have.length(replies.length * 3);
      expect(codes.filter((code) => code === 'answered')).to.deep.equal([]);
      // The 502 is the proxy's own error status; the others are answers the client cannot read.
      expect(codes.slice(0, 12)).to.deep.equal(Array(12).fill('bad_answer'));
      expect(codes.slice(12)).to.deep.equal(Array(3).fill('http_error'));
    } finally {
      for (const fake of servers) fake.close();
    }
  });

  it('the client module type-checks as typed Python (compiles, and every public function is annotated)', () => {
    const check = spawnSync(
      'python3',
      [
        '-c',
        [
          'import ast, sys',
          `tree = ast.parse(open(${JSON.stringify(`${CLIENT_DIR}loopguard_client.py`)}).read())`,
          'missing = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and (n.returns is None or any(a.annotation is None for a in n.args.args if a.arg != "self"))]',
          'print(",".join(missing))',
        ].join('\n'),
      ],
      { encoding: 'utf8' },
    );
    expect(check.status).to.equal(0);
    expect(check.stdout.trim()).to.equal('');
  });
});
