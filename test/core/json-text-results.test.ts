// A tool result given as JSON text is judged as the value it stands for, everywhere (not only by
// the plain fingerprint): the page model of a browser tool and the lines a read window returned
// read the value's parts. `loopguard serve` and replay hand a span's recorded result text on as it
// is, so text and value must never be judged apart.
import { expect } from 'chai';
import { resolveOptions } from '../../src/core/policy.js';
import { fingerprintCallOutcome } from '../../src/core/run-guard.js';
import { fingerprintResult, jsonTextValue } from '../../src/core/result-fingerprint.js';
import type { PrehashedOutcome } from '../../src/core/types.js';
import { prehashCall } from '../../src/core/prehash-call.js';
import { texts } from '../helpers/json-texts.js';

function snapshot(outcome: PrehashedOutcome): Record<string, unknown> {
  return { ...outcome, items: outcome.items };
}

/** A Playwright MCP browser_click result: the page after the click, in the snapshot text part. */
const mcpPage = {
  content: [
    {
      type: 'text',
      text: ['### Page state', '- Page URL: https://shop.example/orders', '- Page Snapshot:', '```yaml', '- heading "Orders" [ref=e3]', '- link "Laptop" [ref=e7]', '- link "Monitor" [ref=e8]', '```'].join('\n'),
    },
  ],
};

describe('a result as JSON text is judged as the value it stands for', () => {
  const options = resolveOptions();
  const page = options.tool('browser_click');

  it("a browser tool's MCP result as JSON text gets the page model, as the object does", () => {
    expect(page.page).to.equal(true);
    const asObject = fingerprintResult(mcpPage, page, 1 << 24);
    expect(snapshot(fingerprintResult(JSON.stringify(mcpPage), page, 1 << 24))).to.deep.equal(snapshot(asObject));
    expect(snapshot(fingerprintResult(JSON.stringify(mcpPage, null, 2), page, 1 << 24))).to.deep.equal(snapshot(asObject));
  });

  it('a read window is read from a shell result given as JSON text, as from the object', () => {
    const call = prehashCall({ tool: 'bash', args: { command: "sed -n '10,12p' src/app.py" } }, options.tool('bash'), options.shellPolls, () => 0);
    expect(call.readWindow).to.not.equal(undefined);
    const result = { returncode: 0, output: 'a = 1\nb = 2\nc = 3\n' };
    const asObject = fingerprintCallOutcome(call, { result }, options.tool('bash'), 1 << 24);
    expect(asObject.window).to.deep.equal({ resource: 'src/app.py', numbered: false, ranges: [[10, 12]] });
    expect(fingerprintCallOutcome(call, { result: JSON.stringify(result) }, options.tool('bash'), 1 << 24).window).to.deep.equal(asObject.window);
  });

  it('on 2,000 seeded random JSON texts, for a plain, a page and a shell tool, text and value fingerprint alike', () => {
    for (const tool of ['search', 'browser_click', 'bash']) {
      const policy = options.tool(tool);
      for (const text of texts(2000, 7)) {
        const value = jsonTextValue(text);
        if (value === text) continue;
        expect(snapshot(fingerprintResult(text, policy, 1 << 24)), `${tool}: ${text}`).to.deep.equal(snapshot(fingerprintResult(value, policy, 1 << 24)));
      }
    }
  });

  it('text that is not a JSON object or array stays text', () => {
    for (const text of ['"quoted"', '42', 'plain', '[a12] button "Submit"', '{not json']) expect(jsonTextValue(text)).to.equal(text);
  });
});

// One door for text: an MCP tool's answer is a `CallToolResult` whose one text part is the text
// a plain tool would return. The MCP path once had its own shorter check, without the count
// zero ("0\n") or the shell harnesses' per-call ids (world-state/shell-answer-envelope.ts).
describe("an MCP tool's one text part is judged as the same text returned plainly", () => {
  const options = resolveOptions();
  const codex = (chunk: string, body: string) => `Chunk ID: ${chunk}\nWall time: 0.2${chunk.length} seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\n${body}`;
  const gemini = (pgid: number, body: string) => `Command: ls\nDirectory: (root)\nOutput: ${body}\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: ${pgid}`;
  const samples = [
    '0',
    '0\n',
    '',
    'No matches found',
    'src/a.py:10:def parse(x):\n',
    codex('3a41f0', ''),
    codex('3a5d2b', 'src/a.py:10:def parse(x):\n'),
    gemini(4242, '(empty)'),
    gemini(4243, 'README.md\nsrc'),
    'Error: user not found',
    'total 0\n\n[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command \'\', send other commands to interact with the current process, or send keys to interrupt/kill the command.]',
    '{"items":[]}',
    '[{"id":"doc-17"},{"id":"doc-42"}]',
    // A text that is itself a CallToolResult is not unwrapped twice: left out.
    ...texts(300, 11).filter((text) => !Array.isArray((jsonTextValue(text) as { content?: unknown } | undefined)?.content)),
  ];

  it('for a plain, a shell, a Codex, a gemini-cli and a browser tool', () => {
    for (const tool of ['search', 'bash', 'exec_command', 'run_shell_command', 'browser_click']) {
      const policy = options.tool(tool);
      for (const text of samples) {
        const asMcp = fingerprintResult({ content: [{ type: 'text', text }] }, policy, 1 << 24);
        expect(snapshot(asMcp), `${tool}: ${JSON.stringify(text)}`).to.deep.equal(snapshot(fingerprintResult(text, policy, 1 << 24)));
      }
    }
  });

  it("the count zero through MCP is an empty answer, as plain text is (a shell server's `wc -l` finding nothing)", () => {
    expect(fingerprintResult({ content: [{ type: 'text', text: '0\n' }] }, options.tool('run_command'), 1 << 24)).to.deep.equal({ outcome: 'empty' });
  });
});
