import { expect } from 'chai';
// The corpus build scripts are plain Node modules with no types; only their outputs are used here.
// @ts-expect-error untyped .mjs
import { analyzeLoop } from '../../eval/corpus/scripts/lib.mjs';
// @ts-expect-error untyped .mjs
import { parseAction } from '../../eval/corpus/scripts/src-browsergym-workarena.mjs';
// @ts-expect-error untyped .mjs
import { actionOf, parseLog, stepsOf } from '../../eval/corpus/scripts/src-browsergym-fork-logs.mjs';

/** The mechanical labelling rules of eval/corpus/SOURCES.md, on small hand-made step lists. */
const steps = (pairs: Array<[string, string]>) => pairs.map(([action, observation]) => ({ action, observation }));

describe('corpus labelling rules (eval/corpus/scripts)', () => {
  it('finds a same-observation stretch of 8 in the middle of a run the tail rules miss, and points loopStart at its first call', () => {
    const run = steps([
      ['click(1)', 'catalog'],
      ['click(2)', 'item page'],
      ...Array.from({ length: 8 }, () => ['scroll(0, 300)', 'item page'] as [string, string]),
      ['click(3)', 'cart'],
      ['click(4)', 'done'],
    ]);
    const result = analyzeLoop(run);
    expect([result.looping, result.rule, result.loopStart, result.stretchLength]).to.deep.equal([true, 'same-observation-stretch', 1, 9]);
    expect(result.distinctTailActions).to.deep.equal(['click(2)', 'scroll(0, 300)']);
  });

  it('needs 8 identical observations in a row: 7 is not a loop', () => {
    const run = steps([['a', 'x'], ...Array.from({ length: 7 }, () => ['b', 'y'] as [string, string]), ['c', 'z']]);
    expect(analyzeLoop(run).looping).to.equal(false);
  });

  it('keeps the tail rules first: a final run of 4 identical observations is a same-observation loop from its start', () => {
    const run = steps([['a', 'x'], ['b', 'y'], ['c', 'y'], ['d', 'y'], ['e', 'y']]);
    expect([analyzeLoop(run).rule, analyzeLoop(run).loopStart]).to.deep.equal(['same-observation', 1]);
  });
});

describe('BrowserGym action parsing (browsergym-workarena source)', () => {
  it('reads positional and keyword literals of a BrowserGym action call', () => {
    expect(parseAction("click('a51')")).to.deep.equal({ tool: 'click', args: { args: ['a51'] } });
    expect(parseAction('scroll(0, 300)')).to.deep.equal({ tool: 'scroll', args: { args: [0, 300] } });
    expect(parseAction("click('48', button='middle', modifiers=['Shift'])")).to.deep.equal({ tool: 'click', args: { args: ['48'], button: 'middle', modifiers: ['Shift'] } });
    expect(parseAction(`fill('a12', 'example with "quotes"')`)).to.deep.equal({ tool: 'fill', args: { args: ['a12', 'example with "quotes"'] } });
    expect(parseAction('send_msg_to_user("It\'s 15\\" wide")')).to.deep.equal({ tool: 'send_msg_to_user', args: { args: ['It\'s 15" wide'] } });
    expect(parseAction('noop()')).to.deep.equal({ tool: 'noop', args: { args: [] } });
  });

  it('keeps what it cannot parse as the raw action text instead of guessing its arguments', () => {
    expect(parseAction('I will now click the button')).to.deep.equal({ tool: 'unparsed_action', args: { action: 'I will now click the button' } });
    expect(parseAction('goto(url)')).to.deep.equal({ tool: 'goto', args: { action: 'goto(url)' } });
    expect(parseAction("click('a1'); fill('a2', 'x')")).to.deep.equal({ tool: 'click', args: { action: "click('a1'); fill('a2', 'x')" } });
  });
});

describe('BrowserGym experiment.log reading (wide check, Nid989/BrowserGym fork)', () => {
  const record = (logger: string, text: string) => `2024-12-03 11:56:47,038 - 70391 - ${logger} - INFO - ${text}`;
  const prompt = (page: string, error?: string) =>
    record('agent', ['# Instructions', '', 'Review the page.', '', '# Goal', '', 'Order 9 "iPad pro"', '# Currently open tabs', '', 'Tab 0 (active tab)', '  Title: iPad pro | ServiceNow', '',
      '# Current page Accessibility Tree', '', `RootWebArea '${page}'`, "\t[a48] spinbutton 'Quantity'", '', '# Action Space', '', 'click(bid)',
      ...(error === undefined ? [] : ['', '# History of past actions', '', 'scrolled', '', '# Error message from last action', '', error, '']), '', '# Next action', '', 'Think step by step.', ''].join('\n'));
  const log = [
    record('browsergym.experiments.loop', 'Running experiment DemoAgentArgs_on_workarena.servicenow.order-ipad-pro_9 in:'),
    prompt('Catalog'),
    record('httpx', 'HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 200 OK"'),
    record('browsergym.experiments.loop', "action:\nI will fill the quantity.\n```fill('a48', '9')```\n"),
    prompt('iPad pro', 'TimeoutError: Locator.fill: Timeout 500ms exceeded.\nCall log:\n  - element is not visible'),
    record('browsergym.experiments.loop', 'action:\nI will select the colour, using the `select_option` action.\n'),
    prompt('iPad pro', 'ValueError: Received an empty action.'),
    record('browsergym.experiments.loop', "action:\n```scroll(0, 200)```\n```fill('a48', '9')```\n"),
    record('browsergym.experiments.loop', 'Saving summary info.'),
  ].join('\n');

  it('pairs each action with the page and error of the next prompt, and leaves out the last action, whose outcome is not logged', () => {
    const parsed = parseLog(log);
    expect([parsed.goal, parsed.prompts.length, parsed.answers.length]).to.deep.equal(['Order 9 "iPad pro"', 3, 3]);
    const steps = stepsOf(parsed) as Array<{ action: string; observation: string; failed: boolean }>;
    expect(steps.map((step) => [step.action, step.failed])).to.deep.equal([
      ["fill('a48', '9')", true],
      ['I will select the colour, using the `select_option` action.', true],
    ]);
    expect(steps[0]!.observation).to.equal(
      "Error: TimeoutError: Locator.fill: Timeout 500ms exceeded.\nCall log:\n  - element is not visible\n\nTab 0 (active tab)\n  Title: iPad pro | ServiceNow\n\nRootWebArea 'iPad pro'\n\t[a48] spinbutton 'Quantity'",
    );
    expect(steps[1]!.observation.startsWith('Error: ValueError: Received an empty action.\n\nTab 0')).to.equal(true);
  });

  it('takes the first ``` block of an answer as the action BrowserGym ran', () => {
    expect(actionOf("Scroll first.\n```scroll(0, 200)```\nThen\n```fill('a48', '9')```")).to.equal('scroll(0, 200)');
    expect(actionOf('```python\nclick("a12")\n```')).to.equal('click("a12")');
    expect(actionOf('no code here')).to.equal('no code here');
  });
});
