import { expect } from 'chai';
// The corpus build scripts are plain Node modules with no types; only their outputs are used here.
// @ts-expect-error untyped .mjs
import { analyzeLoop, describeLoop } from '../../eval/corpus/scripts/lib.mjs';
// @ts-expect-error untyped .mjs
import { convert as convertInterCode } from '../../eval/corpus/scripts/src-intercode-bash.mjs';
// @ts-expect-error untyped .mjs
import { convert as convertInterCodeCtf } from '../../eval/corpus/scripts/src-intercode-ctf.mjs';
// @ts-expect-error untyped .mjs
import { convert as convertOpenHandsCompletion, readVerdicts } from '../../eval/corpus/scripts/src-openhands-swebench-claude.mjs';
// @ts-expect-error untyped .mjs
import { parseAction } from '../../eval/corpus/scripts/src-browsergym-workarena.mjs';
// @ts-expect-error untyped .mjs
import { actionOf, parseLog, stepsOf } from '../../eval/corpus/scripts/src-browsergym-fork-logs.mjs';
// @ts-expect-error untyped .mjs
import { callsOf as callsOfBrowserUse, pageOf as pageOfBrowserUse } from '../../eval/corpus/scripts/src-webarena-infinity.mjs';
// @ts-expect-error untyped .mjs
import { callsOf as callsOfAbp, parseAction as parseAbpAction } from '../../eval/corpus/scripts/src-abp-online-mind2web.mjs';

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

describe('loop reasons (eval/corpus/scripts/lib.mjs)', () => {
  it('escapes control characters of an observation it quotes: a file of NUL bytes must not make EVAL.md binary', () => {
    const run = steps([['cat a', 'x'], ...Array.from({ length: 4 }, () => ['cat b', '\u0000\u0000ab'] as [string, string])]);
    const reason = describeLoop('failed', run, analyzeLoop(run)) as string;
    expect(reason).to.contain('`\\x00\\x00ab`');
    expect(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(reason), 'raw control character').to.equal(false);
  });
});

/** An InterCode episode as its logs keep it (`turn_history`: one entry per turn in each list), from its turns. */
function interCodeEpisode(turns: Array<[action: string, observation: string, valid: boolean]>, reward: number) {
  return {
    turn_history: {
      actions: turns.map(([action]) => action),
      observations: turns.map(([, observation]) => observation),
      rewards: turns.map(() => reward),
      valid_action: turns.map(([, , valid]) => valid),
    },
  };
}

describe('InterCode-Bash episodes (intercode-bash source)', () => {
  const episode = interCodeEpisode(
    [
      ['ls /testbed', 'a\nb\n', true],
      ['find / -name x', 'Command timed out', false],
      ['echo $(', 'Malformed command', false],
    ],
    0.3,
  );
  it('writes one bash call per turn; the environment\'s own failure texts become errors, other output stays a result', () => {
    const { lines, steps: read } = convertInterCode(episode, 'run-1');
    expect(lines.map((line: string) => JSON.parse(line))).to.deep.equal([
      { run: 'run-1', round: 1, tool: 'bash', args: { command: 'ls /testbed' }, result: 'a\nb\n' },
      { run: 'run-1', round: 2, tool: 'bash', args: { command: 'find / -name x' }, error: { type: 'timeout', message: 'Command timed out' } },
      { run: 'run-1', round: 3, tool: 'bash', args: { command: 'echo $(' }, error: { type: 'MalformedCommand', message: 'Malformed command' } },
    ]);
    expect(read.map((step: { observation: string }) => step.observation)).to.deep.equal(episode.turn_history.observations);
  });

  it('keeps a failed command\'s output as the result when it is not the environment\'s failure text', () => {
    const failed = interCodeEpisode([['cat nope', 'cat: nope: No such file', false]], 0);
    expect(JSON.parse(convertInterCode(failed, 'r').lines[0]).result).to.equal('cat: nope: No such file');
  });
});

describe('InterCode-CTF episodes (intercode-ctf source)', () => {
  it('makes `submit <flag>` a submit call and every other action a bash call', () => {
    const episode = interCodeEpisode(
      [
        ['cat flag.enc', 'xyz', true],
        ['submit picoCTF{wrong}', 'Submitted flag is incorrect. Keep trying!', true],
        ['sleep 99', 'Command timed out', false],
      ],
      0,
    );
    expect(convertInterCodeCtf(episode, 'c').lines.map((line: string) => JSON.parse(line))).to.deep.equal([
      { run: 'c', round: 1, tool: 'bash', args: { command: 'cat flag.enc' }, result: 'xyz' },
      { run: 'c', round: 2, tool: 'submit', args: { flag: 'picoCTF{wrong}' }, result: 'Submitted flag is incorrect. Keep trying!' },
      { run: 'c', round: 3, tool: 'bash', args: { command: 'sleep 99' }, error: { type: 'timeout', message: 'Command timed out' } },
    ]);
  });
});

describe('OpenHands LLM-completion logs (openhands-swebench-claude source)', () => {
  const call = (id: string, name: string, args: object) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
  const completion = {
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'You are OpenHands agent' }] },
      { role: 'user', content: [{ type: 'text', text: 'Fix the issue' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Look first' }], tool_calls: [call('t1', 'execute_bash', { command: 'ls' })] },
      { role: 'tool', tool_call_id: 't1', name: 'execute_bash', content: [{ type: 'text', text: 'setup.py' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done, I think.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Please continue working on the task' }] },
      { role: 'assistant', content: [], tool_calls: [call('t2', 'str_replace_editor', { command: 'view', path: '/a.py' })] },
      { role: 'tool', tool_call_id: 't2', name: 'str_replace_editor', content: [{ type: 'text', text: '1 import os' }] },
    ],
    response: { choices: [{ message: { role: 'assistant', content: 'bye', tool_calls: [call('t3', 'finish', {})] } }] },
  };
  it('rebuilds the calls from the last completion: rounds count assistant turns, finish has no result and is left out', () => {
    const { lines, leftOut, rounds } = convertOpenHandsCompletion(completion, 'r');
    expect(lines.map((line: string) => JSON.parse(line))).to.deep.equal([
      { run: 'r', round: 1, tool: 'execute_bash', args: { command: 'ls' }, callId: 't1', result: 'setup.py' },
      { run: 'r', round: 3, tool: 'str_replace_editor', args: { command: 'view', path: '/a.py' }, callId: 't2', result: '1 import os' },
    ]);
    expect([leftOut, rounds]).to.deep.equal([['finish in round 4'], 4]);
  });

  it('reads resolved and unresolved instance ids from the SWE-bench report, and refuses a report without them', () => {
    const report = '# SWE-bench Report\n## Resolved Instances\n- [a__a-1](x)\n\n## Unresolved Instances\n- [b__b-2](y)\n\n## Error Instances\n';
    expect([...readVerdicts(report)]).to.deep.equal([['a__a-1', true], ['b__b-2', false]]);
    expect(() => readVerdicts('# nothing')).to.throw('Resolved Instances');
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

describe('browser-use history reading (wide check, WebArena-Infinity)', () => {
  const state = (page: string) => `<agent_history>\n…\n</agent_history>\n<browser_state>\n${page}\n</browser_state>\n<read_state></read_state>`;
  // Trimmed from gmail task_m15's history.json: a step of two actions, one cut short, a failed model call, the answer.
  const history = [
    { model_output: { action: [{ navigate: { url: 'http://localhost:8007', new_tab: false } }] }, result: [{ is_done: false, extracted_content: '🔗 Navigated to http://localhost:8007' }], state_message: state('initial') },
    { model_output: { action: [{ click: { index: 27057 } }, { click: { index: 29212 } }] }, result: [{ is_done: false, extracted_content: 'Clicked button id=settingsBtn aria-label=Settings' }], state_message: state('[27057]<button id=settingsBtn aria-label=Settings />') },
    { model_output: null, result: [{ is_done: false, error: '429 RESOURCE_EXHAUSTED.' }], state_message: state('Settings page') },
    { model_output: { action: [{ scroll: { index: 24401, down: true, pages: 10 } }] }, result: [{ is_done: false, error: 'Element index 24401 not found in browser state' }], state_message: state('Settings page') },
    { model_output: { action: [{ done: { text: 'Done.', success: true } }] }, result: [{ is_done: true, extracted_content: 'Done.' }], state_message: state('General tab') },
  ];

  it('makes each action a call of its step\'s round, as far as the step\'s results go; a failed model call makes none', () => {
    const calls = callsOfBrowserUse(history) as Array<{ round: number; tool: string; args: unknown; answer: string; error?: string; observation: string }>;
    expect(calls.map((call) => [call.round, call.tool, call.answer])).to.deep.equal([
      [1, 'navigate', '🔗 Navigated to http://localhost:8007'],
      [2, 'click', 'Clicked button id=settingsBtn aria-label=Settings'],
      [4, 'scroll', 'Element index 24401 not found in browser state'],
      [5, 'done', 'Done.'],
    ]);
    expect(calls[2]!.error).to.equal('Element index 24401 not found in browser state');
    expect(calls[0]!.args).to.deep.equal({ url: 'http://localhost:8007', new_tab: false });
  });

  it('observes each answer with the page of the next step\'s browser state, what the agent saw next', () => {
    const calls = callsOfBrowserUse(history) as Array<{ observation: string }>;
    expect(calls[1]!.observation).to.equal('Clicked button id=settingsBtn aria-label=Settings\n\nSettings page');
    expect(calls[3]!.observation).to.equal('Done.\n\n');
    expect(pageOfBrowserUse({ state_message: 'no state here' })).to.equal('');
  });
});

describe('ABP recording-proxy reading (wide check, Online-Mind2Web)', () => {
  it('parses the proxy\'s action descriptions back into the MCP tools\' arguments, and keeps what it cannot read as the type', () => {
    expect(parseAbpAction('Navigate to https://www.bbb.org/')).to.deep.equal({ tool: 'browser_navigate', args: { url: 'https://www.bbb.org/' } });
    expect(parseAbpAction('Navigate back')).to.deep.equal({ tool: 'browser_navigate', args: { action: 'back' } });
    expect(parseAbpAction('Scroll (delta_x=0, delta_y=-600)')).to.deep.equal({ tool: 'browser_scroll', args: { delta_x: 0, delta_y: -600 } });
    expect(parseAbpAction('Click at (973, 761)')).to.deep.equal({ tool: 'browser_action', action: { type: 'mouse_click', x: 973, y: 761 } });
    expect(parseAbpAction('Type "New York, NY"')).to.deep.equal({ tool: 'browser_action', action: { type: 'keyboard_type', text: 'New York, NY' } });
    expect(parseAbpAction('Press Control+a')).to.deep.equal({ tool: 'browser_action', action: { type: 'keyboard_press', key: 'Control+a' } });
    expect(parseAbpAction('Slider (horizontal) set to 40 [range 0-100]')).to.deep.equal({ tool: 'browser_slider', args: { orientation: 'horizontal', target_value: 40, min: 0, max: 100 } });
    expect(parseAbpAction('wheel_zoom')).to.deep.equal({ tool: 'browser_action', action: { type: 'wheel_zoom' } });
  });

  it('reads sub-actions of one browser_action call back as one call only when they share the screenshot and a non-empty thought', () => {
    const result = {
      action_history: ['Navigate to https://a.example/', 'Click at (300, 148)', 'Type "used cars"', 'Click at (973, 761)', 'Click at (973, 761)', 'Scroll (delta_x=0, delta_y=500)'],
      thoughts: ['', 'Search for used cars.', 'Search for used cars.', '', '', 'Scroll down.'],
    };
    // The proxy saves the call's one screenshot for each of its sub-actions; the two bare clicks got the same image too.
    const shots = new Map([[1, 'a'], [2, 'b'], [3, 'b'], [4, 'c'], [5, 'c'], [6, 'd']]);
    const calls = callsOfAbp(result, shots) as Array<{ tool: string; args: unknown; shot?: string }>;
    expect(calls.map((call) => [call.tool, call.args, call.shot])).to.deep.equal([
      ['browser_navigate', { url: 'https://a.example/' }, 'a'],
      ['browser_action', { actions: [{ type: 'mouse_click', x: 300, y: 148 }, { type: 'keyboard_type', text: 'used cars' }] }, 'b'],
      // No thought: two calls or one, the recording cannot tell; kept apart, so a repeat is never hidden.
      ['browser_action', { actions: [{ type: 'mouse_click', x: 973, y: 761 }] }, 'c'],
      ['browser_action', { actions: [{ type: 'mouse_click', x: 973, y: 761 }] }, 'c'],
      ['browser_scroll', { delta_x: 0, delta_y: 500 }, 'd'],
    ]);
  });
});
