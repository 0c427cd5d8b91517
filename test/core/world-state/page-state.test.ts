// The page-state model for browser and GUI agents (issue 18 item 2), through the real engine.
// Pages are written in the shapes the tools return: BrowserGym's AXTree text (`[bid] role
// 'name'`, StaticText lines without ids; as in BrowserGym / WorkArena experiment dumps) and
// Playwright MCP's snapshot text (`### Page state`, `- role "name" [ref=eN]`, the "Ran
// Playwright code" echo).
import { expect } from 'chai';
import { fingerprintPage } from '../../../src/core/world-state/page-state.js';
import { WELL_KNOWN_BROWSER_TOOLS } from '../../../src/core/world-state/well-known-tools.js';
import { resolveOptions } from '../../../src/core/policy.js';
import { prehashCall } from '../../../src/core/prehash-call.js';
import { judgeEachCall, kinds, newRun, playRounds, playTakingTurns, type ScriptedCall } from '../play.js';

/** A BrowserGym observation: tab header plus the flattened AXTree. */
function axtree(title: string, url: string, nodes: string[]): string {
  return [`- Tab 0 (active)`, `  - Title: ${title}`, `  - URL: ${url}`, '', `RootWebArea '${title}', focused, url='${url}'`, ...nodes.map((node) => `\t${node}`)].join('\n');
}

const ORDERS = ['Laptop', 'Monitor', 'Keyboard', 'Mouse', 'Headset', 'Dock', 'Webcam', 'Charger'];
const listPage = axtree('Orders | Shop', 'https://shop.example/orders', [
  `[40] navigation 'Primary'`,
  `\t[41] link 'Home', url='https://shop.example/'`,
  `[50] table 'Orders'`,
  ...ORDERS.map((item, index) => `\t[${60 + index}] link '${item}', url='https://shop.example/orders/${index}'`),
]);
/** The list page again, its items in the opposite order. */
const shuffledListPage = axtree('Orders | Shop', 'https://shop.example/orders', [
  `[40] navigation 'Primary'`,
  `\t[41] link 'Home', url='https://shop.example/'`,
  `[50] table 'Orders'`,
  ...[...ORDERS.keys()].reverse().map((index) => `\t[${60 + index}] link '${ORDERS[index]}', url='https://shop.example/orders/${index}'`),
]);
const detailPage = (index: number) =>
  axtree(`${ORDERS[index]} | Shop`, `https://shop.example/orders/${index}`, [
    `[40] navigation 'Primary'`,
    `\t[41] link 'Home', url='https://shop.example/'`,
    `[90] heading '${ORDERS[index]}'`,
    `\tStaticText 'Order #10${index}'`,
    `\tStaticText 'Total: $${(index + 1) * 25}.00'`,
    `[99] button 'Back to orders'`,
  ]);

/** A Playwright MCP tool result: the code it ran, then the page state with per-snapshot refs. */
function playwrightResult(code: string, url: string, title: string, snapshot: string[], refOffset = 0): { content: Array<{ type: 'text'; text: string }> } {
  const renumbered = snapshot.map((line) => line.replace(/\[ref=e(\d+)\]/g, (_m, n: string) => `[ref=e${Number(n) + refOffset}]`));
  const text = ['### Ran Playwright code', '```js', code, '```', '', '### Page state', `- Page URL: ${url}`, `- Page Title: ${title}`, '- Page Snapshot:', '```yaml', ...renumbered, '```'].join('\n');
  return { content: [{ type: 'text', text }] };
}
const resultsSnapshot = [
  '- generic [ref=e2]:',
  '  - navigation [ref=e3]:',
  '    - link "Docs" [ref=e4] [cursor=pointer]:',
  '      - /url: /docs',
  '  - main [ref=e10]:',
  '    - heading "Search results" [level=1] [ref=e11]',
  '    - paragraph [ref=e12]: No results for your filters.',
  '    - button "Next page" [ref=e13] [cursor=pointer]',
];

describe('page-state model: browser and GUI agents (issue 18 item 2)', () => {
  it('collecting items across a list page and its detail pages is progress (BrowserGym AXTree)', () => {
    const run = newRun();
    const rounds: ScriptedCall[][] = [[{ tool: 'goto', args: { url: 'https://shop.example/orders' }, outcome: { result: listPage } }]];
    ORDERS.forEach((_item, index) => {
      rounds.push([{ tool: 'click', args: { bid: String(60 + index) }, outcome: { result: detailPage(index) } }]);
      rounds.push([{ tool: 'go_back', args: {}, outcome: { result: listPage } }]);
    });
    rounds.push([{ tool: 'send_msg_to_user', args: { text: 'The Laptop order is the most expensive.' }, outcome: { result: 'sent' } }]);
    const log = playRounds(run, rounds);
    expect(log).to.have.length(rounds.length);
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => kind.startsWith('refuse'))).to.deep.equal([]);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  // The ladder counted a page tool's seen pages across the detail pages between them: the
  // eighth return to the list by its URL switched the navigation off, and the next navigation,
  // to a search never made, was refused (ABP's runs on Online-Mind2Web, eval/WIDE.md).
  const collectByUrl = (navigate: string): ScriptedCall[] => {
    const steps: ScriptedCall[] = [{ tool: navigate, args: { url: 'https://shop.example/orders' }, outcome: { result: listPage } }];
    ORDERS.forEach((_item, index) => {
      steps.push({ tool: 'click', args: { bid: String(60 + index) }, outcome: { result: detailPage(index) } });
      steps.push({ tool: navigate, args: { url: 'https://shop.example/orders' }, outcome: { result: listPage } });
    });
    const archived = axtree('Orders | Shop', 'https://shop.example/orders?archived=1', [`[50] table 'Orders'`, `\t[60] link 'Printer', url='https://shop.example/orders/90'`]);
    steps.push({ tool: navigate, args: { url: 'https://shop.example/orders?archived=1' }, outcome: { result: archived } });
    steps.push({ tool: 'send_msg_to_user', args: { text: 'The Laptop order is the most expensive.' }, outcome: { result: 'sent' } });
    return steps;
  };
  for (const [agent, navigate] of [['BrowserGym', 'goto'], ['Playwright MCP', 'browser_navigate']] as const) {
    it(`collecting items by returning to the list by its URL, then a new search, is never refused (${agent} \`${navigate}\`)`, () => {
      const rounds = collectByUrl(navigate).map((step) => [step]);
      const log = playRounds(newRun(), rounds);
      expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => kind.startsWith('refuse'))).to.deep.equal([]);
      expect(log.map((round) => round.after.action)).to.deep.equal(Array(rounds.length).fill('continue'));
    });
  }

  it('the same through two engines sharing the run through a store, taking turns: nothing refused', async () => {
    const steps = collectByUrl('browser_navigate');
    expect(await playTakingTurns('collect-by-url', steps)).to.deep.equal(Array(steps.length).fill('allow/continue'));
  });

  it('a page tool returning seen pages is still switched off when only other tools find anything new in between', () => {
    // The same list by ever-new URLs, a lookup with a new answer between each: no page action finds anything.
    const rounds: ScriptedCall[][] = [[{ tool: 'goto', args: { url: 'https://shop.example/orders' }, outcome: { result: listPage } }]];
    for (let step = 0; step < 3; step++) {
      rounds.push([{ tool: 'lookup_price', args: { sku: `sku-${step}` }, outcome: { result: { sku: `sku-${step}`, price: 10 + step } } }]);
      rounds.push([{ tool: 'goto', args: { url: `https://shop.example/orders?from=${step}` }, outcome: { result: listPage } }]);
    }
    rounds.push([{ tool: 'goto', args: { url: 'https://shop.example/orders?archived=1' }, outcome: { result: listPage } }]);
    const log = playRounds(newRun(), rounds);
    expect(kinds(log.at(-1)!.decisions)).to.deep.equal(['refuse:tool.disabled']);
  });

  it('filling a form whose page does not show the values is not a loop: each new field is neither new nor seen', () => {
    const form = axtree('New incident | ServiceNow', 'https://sn.example/incident.do', [
      `[224] textbox 'Caller'`,
      `[226] textbox 'Short description'`,
      `[228] combobox 'Urgency'`,
      `[230] textbox 'Assignment group'`,
      `[232] textbox 'Configuration item'`,
      `[234] textbox 'Description'`,
      `[240] button 'Submit'`,
    ]);
    const fills: ScriptedCall[][] = [
      [{ tool: 'goto', args: { url: 'https://sn.example/incident.do' }, outcome: { result: form } }],
      ...[
        ['224', 'Abel Tuter'],
        ['226', 'Laptop does not boot'],
        ['228', '2 - Medium'],
        ['230', 'Hardware'],
        ['232', 'MacBook Pro 15'],
        ['234', 'Black screen after the update'],
      ].map(([bid, value]) => [{ tool: bid === '228' ? 'select_option' : 'fill', args: { bid, value }, outcome: { result: form } }]),
      [{ tool: 'click', args: { bid: '240' }, outcome: { result: axtree('Incident INC0010042 | ServiceNow', 'https://sn.example/incident.do?sys_id=42', [`StaticText 'Incident INC0010042 created'`]) } }],
    ];
    const run = newRun();
    const log = playRounds(run, fills);
    expect(log.map((round) => round.after.action)).to.not.include('stop');
    expect(kinds(log.flatMap((round) => round.decisions)).every((kind) => kind.startsWith('allow'))).to.equal(true);
    expect(run.staleRoundStreak).to.equal(0);
  });

  it('clicking the same element and getting the same page again is a loop, even when the snapshot renumbers its refs (Playwright MCP)', () => {
    const run = newRun();
    const click = (round: number): ScriptedCall => ({
      tool: 'browser_click',
      args: { element: 'Next page', ref: 'e13' },
      // Re-rendered elements get fresh refs in every snapshot: the text differs, the page does not.
      outcome: { result: playwrightResult(`await page.getByRole('button', { name: 'Next page' }).click();`, 'https://docs.example/search?q=x', 'Search', resultsSnapshot, round * 100) },
    });
    const log = playRounds(run, [0, 1, 2, 3].map((round) => [click(round)]));
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged', 'refuse:repeat.unchanged']);
  });

  it('a browser tool\'s MCP error (`isError: true`) is a failure, as the same error thrown: not a page seen again', () => {
    // BrowserGym's actions served over MCP: a click on an element that is gone answers isError
    // with the error and then the page, as BrowserGym's own error does. Read as a page, each
    // failure was the list page seen again (stale rounds), and no failure was counted.
    const error = `Error: ValueError: Could not find element with bid "252"\n\n${listPage}`;
    const asMcp = (bid: string): ScriptedCall => ({ tool: 'click', args: { bid }, outcome: { result: { isError: true, content: [{ type: 'text', text: error }] } } });
    const thrown = (bid: string): ScriptedCall => ({ tool: 'click', args: { bid }, outcome: { error: { type: 'tool_error', message: error } } });
    const refs = ['252', '269', '252', '251', '252', '270'];
    const mcpRun = newRun();
    const thrownRun = newRun();
    const mcpKinds = kinds(playRounds(mcpRun, refs.map((ref) => [asMcp(ref)])).flatMap((round) => round.decisions));
    const thrownKinds = kinds(playRounds(thrownRun, refs.map((ref) => [thrown(ref)])).flatMap((round) => round.decisions));
    expect(mcpKinds).to.deep.equal(thrownKinds);
    expect(mcpRun.shouldStop()).to.deep.equal(thrownRun.shouldStop());
    // The same click failing the same way a third time is refused as the same error.
    expect(mcpKinds).to.deep.equal(['allow:new', 'allow:new', 'allow:retry', 'allow:new', 'refuse:repeat.same_error', 'allow:new']);
  });

  it('a browser action\'s failure returned as its answer is that failure, as thrown: WebShop\'s invalid click is refused, not clicked twelve times', () => {
    const click = { element: '2.8 ounce pack with himalayan pink salt coarse grind' };
    const asText = playRounds(newRun(), Array.from({ length: 8 }, () => [{ tool: 'click', args: click, outcome: { result: 'Invalid action!' } }]));
    const thrown = playRounds(newRun(), Array.from({ length: 8 }, () => [{ tool: 'click', args: click, outcome: { error: { type: 'tool_error', message: 'Invalid action!' } } }]));
    expect(kinds(asText.flatMap((round) => round.decisions))).to.deep.equal(kinds(thrown.flatMap((round) => round.decisions)));
    expect(kinds(asText.flatMap((round) => round.decisions))).to.include('refuse:repeat.same_error');
    // A line about the action that did something is still no repeat: the page it leads to is not shown.
    const clicked = playRounds(newRun(), Array.from({ length: 8 }, () => [{ tool: 'click', args: { element: 'Next >' }, outcome: { result: 'You have clicked Next >.' } }]));
    expect(clicked.flatMap((round) => round.decisions).every((decision) => decision.action === 'allow')).to.equal(true);
  });

  it('cycling through the same few pages with nothing new stops on stale rounds', () => {
    const run = newRun();
    const pages = [0, 1, 2].map((index) => detailPage(index));
    const rounds: ScriptedCall[][] = [];
    // The agent reaches the same three pages by ever-different routes (so no call repeats).
    for (let step = 0; step < 12; step++) rounds.push([{ tool: 'goto', args: { url: `https://shop.example/orders/${step % 3}?from=${step}` }, outcome: { result: pages[step % 3]! } }]);
    const log = playRounds(run, rounds);
    const stop = log.at(-1)!.after;
    expect(stop).to.include({ action: 'stop', reason: 'stale_rounds' });
    // Three new pages, then five rounds of pages already seen.
    expect(log).to.have.length(8);
  });

  it('a reworded search typed into the page, the same results each time, still stops (document 000 in a browser)', () => {
    const results = axtree('Search | Docs', 'https://docs.example/search', [`[12] textbox 'Search'`, `[13] button 'Go'`, `StaticText 'Retention: 30 days'`]);
    const rounds: ScriptedCall[][] = [];
    for (const query of ['retention', 'data retention', 'how long is data kept', 'retention period', 'deleted data', 'backup expiry', 'log retention', 'trash']) {
      rounds.push([{ tool: 'fill', args: { bid: '12', value: query }, outcome: { result: results } }]);
      rounds.push([{ tool: 'click', args: { bid: '13' }, outcome: { result: results } }]);
    }
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log.length).to.be.at.most(12);
  });

  it('a browser tool an MCP server marks destructive still answers with a page, not an acknowledgement (Playwright MCP through the proxy)', () => {
    const destructive = { annotations: { readOnlyHint: false, destructiveHint: true } };
    const run = newRun({ tools: { browser_navigate: destructive } });
    const pages = [0, 1].map((index) => playwrightResult(`await page.goto('x');`, `https://shop.example/orders/${index}`, ORDERS[index]!, [`- heading "${ORDERS[index]}" [level=1] [ref=e3]`]));
    const rounds: ScriptedCall[][] = [];
    for (let step = 0; step < 10; step++) rounds.push([{ tool: 'browser_navigate', args: { url: `https://shop.example/orders/${step % 2}?visit=${step}` }, outcome: { result: pages[step % 2]! } }]);
    const log = playRounds(run, rounds);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log).to.have.length(7);
  });

  it('a page made only of nodes already seen elsewhere is seen: back on the list, the same items in another order', () => {
    const run = newRun();
    run.beginRound();
    expect(run.finishCall(run.startCall({ tool: 'goto', args: { url: 'https://shop.example/orders' } }), { result: listPage })).to.equal('new');
    expect(run.finishCall(run.startCall({ tool: 'click', args: { bid: '45' } }), { result: shuffledListPage })).to.equal('seen');
  });

  it('scrolls whose page moves are not repeats of each other; a scroll that no longer moves the page is', () => {
    const viewport = (first: number) => playwrightResult(`await page.mouse.wheel(0, 600);`, 'https://shop.example/orders', 'Orders', ORDERS.slice(first, first + 3).map((item, index) => `- link "${item}" [ref=e${20 + index}]`));
    const run = newRun();
    const scroll = (first: number): ScriptedCall => ({ tool: 'browser_scroll', args: { deltaY: 600 }, outcome: { result: viewport(first) } });
    const log = playRounds(run, [[scroll(0)], [scroll(3)], [scroll(5)], [scroll(5)], [scroll(5)]]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:repeat', 'allow:repeat', 'allow:repeat', 'refuse:repeat.unchanged']);
  });

  it('a browser_action / computer call is judged by its action: scroll_down is its own ladder family', () => {
    const run = newRun();
    run.beginRound();
    const ticket = run.startCall({ tool: 'browser_action', args: { action: 'scroll_down' } });
    expect(ticket.call.family).to.equal('scroll_down');
    const computer = run.startCall({ tool: 'computer', args: { action: 'left_click', coordinate: [100, 200] } });
    expect(computer.call.family).to.equal('left_click');
  });

  // A page is a result: what ticks on it between two looks (an age, a clock) is noise there as
  // anywhere (noise-and-identity.md). Read as a node, each tick made the same page new, and the
  // same click answered by it ran until a budget.
  it('the same click answering the same page, whose only change is an age or a clock, is a loop (BrowserGym, Playwright MCP)', () => {
    const issues = (minutes: number) => axtree('Issues', 'https://gh.example/issues', [
      `[12] link 'Fix login bug'`, `StaticText 'opened ${minutes} minutes ago by bob'`, `[13] link 'Crash on save'`, `StaticText 'updated ${minutes + 2} minutes ago'`, `[14] button 'Next'`,
    ]);
    const status = (second: number) => playwrightResult(`await page.getByRole('button', { name: 'Refresh' }).click();`, 'https://status.example/', 'Status',
      ['- heading "All systems operational" [level=1] [ref=e1]', `- text: "Last checked: 2026-12-07 16:10:${String(second).padStart(2, '0')}"`, '- button "Refresh" [ref=e2]']);
    const clickNext = playRounds(newRun(), Array.from({ length: 8 }, (_, index) => [{ tool: 'click', args: { bid: '14' }, outcome: { result: issues(3 + index) } }]));
    const refresh = playRounds(newRun(), Array.from({ length: 8 }, (_, index) => [{ tool: 'browser_click', args: { element: 'Refresh', ref: 'e2' }, outcome: { result: status(index * 7) } }]));
    for (const log of [clickNext, refresh]) expect(kinds(log.flatMap((round) => round.decisions))).to.include('refuse:repeat.unchanged');
  });

  it('a page whose ages and clocks are data that differ is still new: the next issue, opened at another time', () => {
    const issue = (number: number) => axtree(`Issue #${number}`, `https://gh.example/issues/${number}`, [`[12] heading 'Issue #${number}'`, `StaticText 'opened ${number} minutes ago by bob'`]);
    const steps = Array.from({ length: 6 }, (_, index) => ({ tool: 'click', args: { bid: String(20 + index) }, outcome: { result: issue(100 + index) } }));
    expect(judgeEachCall(steps).judged).to.deep.equal(Array(6).fill('new'));
  });

  it('fingerprints a page by its nodes: ids and the echoed code do not count, the text of each node does', () => {
    const a = fingerprintPage(playwrightResult(`await page.click('a');`, 'https://x.example', 'X', resultsSnapshot, 0), 1 << 20)!;
    const b = fingerprintPage(playwrightResult(`await page.click('b');`, 'https://x.example', 'X', resultsSnapshot, 300), 1 << 20)!;
    expect(a.resultHash).to.equal(b.resultHash);
    const changed = fingerprintPage(playwrightResult(`await page.click('a');`, 'https://x.example', 'X', [...resultsSnapshot, '    - paragraph [ref=e14]: 3 results'], 0), 1 << 20)!;
    expect(changed.resultHash).to.not.equal(a.resultHash);
    expect(fingerprintPage('Clicked.', 1 << 20)).to.equal(undefined);
    expect(fingerprintPage(listPage, 1 << 20)!.items).to.have.length(listPage.split('\n').filter((line) => line.trim() !== '').length);
  });

  it('knows Claude Code\'s MCP tool names by the tool\'s own name (mcp__playwright__browser_click, mcp__support__send_msg_to_user)', () => {
    const run = newRun();
    expect(run.isAnswerTool('mcp__support__send_msg_to_user')).to.equal(true);
    expect(run.isAnswerTool('mcp__support__lookup')).to.equal(false);
    run.beginRound();
    const click = () => run.startCall({ tool: 'mcp__playwright__browser_click', args: { element: 'Next page', ref: 'e13' } });
    const page = (offset: number) => playwrightResult(`await page.click('x');`, 'https://docs.example', 'Docs', resultsSnapshot, offset);
    run.finishCall(click(), { result: page(0) });
    expect(run.finishCall(click(), { result: page(50) })).to.equal('seen');
  });

  it('a user policy marks a custom tool as a browser tool (`browser: true`, or the argument naming its action)', () => {
    const run = newRun({ tools: { web_act: { browser: 'op' }, page_click: { browser: true } } });
    run.beginRound();
    expect(run.startCall({ tool: 'web_act', args: { op: 'scroll' } }).call.family).to.equal('scroll');
    const first = run.startCall({ tool: 'page_click', args: { id: 1 } });
    expect(run.finishCall(first, { result: listPage })).to.equal('new');
    expect(() => newRun({ tools: { web_act: { browser: 3 as unknown as boolean } } })).to.throw(/tools\.web_act\.browser/);
  });
});

/** A call answered with `result`. */
function act(tool: string, args: Record<string, unknown>, result: string): ScriptedCall {
  return { tool, args, outcome: { result } };
}

/** The same answer three rounds in a row: an answer tool, allowed every time. */
function expectAnswerTool(tool: string, args: Record<string, unknown>): void {
  const run = newRun();
  expect(run.isAnswerTool(tool)).to.equal(true);
  const log = playRounds(run, [1, 2, 3].map(() => [{ tool, args, outcome: { result: 'ok' } }]));
  expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:terminal', 'allow:terminal', 'allow:terminal']);
}

// browser-use answers an action with a line saying what it did ("🖱️  Clicked button with index
// 31: More", "🔍  Scrolled down the page by one page"); the page itself reaches the model in its
// next step's browser state, which a guard of the tool calls never sees. The same click on
// "More" is the next page every time, and the same scroll is further down the page.
describe('browser actions answered by a line about themselves, not the page (browser-use)', () => {
  const more = (): ScriptedCall => ({ tool: 'click_element_by_index', args: { index: 31 }, outcome: { result: '🖱️  Clicked button with index 31: More' } });
  const scrollDown = (): ScriptedCall => ({ tool: 'scroll_down', args: { amount: null }, outcome: { result: '🔍  Scrolled down the page by one page' } });

  it('paging through a list with the same "More" click, eight times in a row, is never refused nor stopped', () => {
    const start: ScriptedCall = { tool: 'go_to_url', args: { url: 'https://news.ycombinator.com' }, outcome: { result: '🔗  Navigated to https://news.ycombinator.com' } };
    const log = playRounds(newRun(), [[start], ...Array.from({ length: 8 }, () => [more()])]);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(9).fill('continue'));
    expect(kinds(log.flatMap((round) => round.decisions)).every((kind) => kind.startsWith('allow'))).to.equal(true);
  });

  it('scrolling down a long page one page at a time is never refused nor stopped', () => {
    const log = playRounds(newRun(), Array.from({ length: 10 }, () => [scrollDown()]));
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(10).fill('continue'));
    expect(kinds(log.flatMap((round) => round.decisions)).every((kind) => kind.startsWith('allow'))).to.equal(true);
  });

  it('the same, as an MCP tool\'s text content', () => {
    const click = (): ScriptedCall => ({ tool: 'browser_click', args: { index: 31 }, outcome: { result: { content: [{ type: 'text', text: 'Clicked element 31' }] } } });
    const log = playRounds(newRun(), Array.from({ length: 8 }, () => [click()]));
    expect(kinds(log.flatMap((round) => round.decisions)).every((kind) => kind.startsWith('allow'))).to.equal(true);
  });

  // browser-use's extraction answers with a model's summary of the page, worded anew each time.
  it('the same extraction of an unchanged page is a repeat, however it is worded; after a click or a scroll it runs again', () => {
    const extract = (summary: string): ScriptedCall => ({ tool: 'extract_structured_data', args: { query: 'list all laptops with prices', extract_links: false }, outcome: { result: `📄  Extracted from page\n: \`\`\`json\n{"summary": "${summary}"}\n\`\`\`` } });
    const looping = playRounds(newRun(), [['Laptop A $999, Laptop B $1299'], ['Two laptops: A at $999, B at $1299'], ['Laptop A costs $999 and B $1299']].map(([summary]) => [extract(summary!)]));
    expect(kinds(looping.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:repeat.run_wide', 'refuse:repeat.run_wide']);
    const healthy = playRounds(newRun(), [[extract('Laptop A $999')], [more()], [extract('Laptop C $1499')], [scrollDown()], [extract('Laptop E $1099')]]);
    expect(kinds(healthy.flatMap((round) => round.decisions)).every((kind) => kind.startsWith('allow'))).to.equal(true);
    // Stagehand's extraction through its MCP server, behind Claude Code's prefix, is the same page read.
    expect(WELL_KNOWN_BROWSER_TOOLS.has('stagehand_extract')).to.equal(true);
    const stagehand = (): ScriptedCall => ({ tool: 'mcp__stagehand__stagehand_extract', args: { instruction: 'the price' }, outcome: { result: { content: [{ type: 'text', text: 'Extracted content: $999' }] } } });
    expect(kinds(playRounds(newRun(), [[stagehand()], [stagehand()]]).flatMap((round) => round.decisions))[1]).to.match(/^refuse:/);
  });

  // Browserbase's MCP server: Stagehand's `act` answers one line about the action, whatever page it led to.
  describe('a Stagehand agent paging through the Browserbase MCP server', () => {
    const mcp = (text: string) => ({ content: [{ type: 'text', text }] });
    const next = (): ScriptedCall => ({ tool: 'mcp__browserbase__browserbase_stagehand_act', args: { action: 'click the Next page button' }, outcome: { result: mcp('Action performed successfully: click the Next page button') } });
    const extract = (page: number): ScriptedCall => ({
      tool: 'mcp__browserbase__browserbase_stagehand_extract',
      args: { instruction: 'list the product names and prices on this page' },
      outcome: { result: mcp(`Extracted content:\n${JSON.stringify({ products: [1, 2, 3].map((item) => ({ name: `Product ${page * 10 + item}`, price: `$${page * 10 + item}` })) })}`) },
    });
    const open: ScriptedCall = { tool: 'browserbase_stagehand_navigate', args: { url: 'https://shop.example/list' }, outcome: { result: mcp('Navigated to: https://shop.example/list') } };

    it('the same "click Next" between extractions that find new products is never refused (it was, the third time, and the run stopped on page 3)', () => {
      const rounds: ScriptedCall[][] = [[open]];
      for (let page = 1; page <= 8; page++) rounds.push([extract(page)], [next()]);
      const log = playRounds(newRun(), rounds);
      expect(kinds(log.flatMap((round) => round.decisions)).every((kind) => kind.startsWith('allow'))).to.equal(true);
      expect(log.map((round) => round.after.action).every((action) => action === 'continue')).to.equal(true);
    });

    it('two engines sharing the run through a store, taking turns, agree: nothing refused', async () => {
      const steps: ScriptedCall[] = [open];
      for (let page = 1; page <= 6; page++) steps.push(extract(page), next());
      expect(await playTakingTurns('stagehand-paging', steps)).to.deep.equal(Array(steps.length).fill('allow/continue'));
    });

    // The page news mark must not make a line-answered action's first run after news count as "not seen yet":
    // WebShop's option click cycling with a rejected one (react-webshop-fixed_24) ran one stale click more.
    it('leaves WebShop\'s option-click cycle as it was: the third "You have clicked red." with nothing new between is refused', () => {
      const page = (text: string): ScriptedCall => ({ tool: 'click', args: { element: 'B0855PG5LJ' }, outcome: { result: `\n[Back to Search] \n[< Prev] \ncolor [blue][red][black]\n${text}` } });
      const red = (): ScriptedCall => ({ tool: 'click', args: { element: 'red' }, outcome: { result: 'You have clicked red.' } });
      const foot = (): ScriptedCall => ({ tool: 'click', args: { element: '3 foot' }, outcome: { error: { type: 'InvalidAction', message: 'Invalid action!' } } });
      const search: ScriptedCall = { tool: 'search', args: { query: 'high speed 3 foot red usb cable' }, outcome: { result: '\n[Back to Search] \nPage 1 (Total results: 50) \n[B0855PG5LJ] \nUSB Type C Cable 5Pack' } };
      const log = playRounds(newRun(), [[search], [page('USB Type C Cable 5Pack (3/3/6/6/10 FT)')], [red()], [foot()], [red()], [foot()], [red()]]);
      expect(kinds(log.flatMap((round) => round.decisions)).at(-1)).to.equal('refuse:repeat.unchanged');
    });

    it('a Next button that does nothing (the same products every time) is a loop, stopped within 5 stale calls', () => {
      const rounds: ScriptedCall[][] = [[open]];
      for (let page = 1; page <= 8; page++) rounds.push([extract(1)], [next()]);
      const log = playRounds(newRun(), rounds);
      const stoppedAt = log.findIndex((round) => round.after.action === 'stop');
      // Rounds 1–3 learn something (the page, its products, the first click); every later one is stale.
      expect(stoppedAt).to.be.within(3, 3 + 5);
    });
  });

  it('two engines sharing the run through a store, taking turns on the same paging, agree: nothing refused', async () => {
    expect(await playTakingTurns('paging', Array.from({ length: 8 }, more))).to.deep.equal(Array(8).fill('allow/continue'));
  });

  // A WebVoyager-style task through browser-use: search, open a result, scroll it, extract, go
  // back, open the next one. Every scroll and every "Navigated back" answers as the last one did,
  // but on another page; the ladder switched scroll_down off on the second detail page.
  const research = (): ScriptedCall[][] => {
    const open = (index: number, title: string): ScriptedCall => act('click_element_by_index', { index }, `🖱️  Clicked button with index ${index}: ${title}`);
    const extract = (facts: string): ScriptedCall => act('extract_content', { goal: 'rating and review count' }, `📄  Extracted from page\n: ${facts}\n`);
    const back = (): ScriptedCall => act('go_back', {}, '🔙  Navigated back');
    const rounds: ScriptedCall[][] = [
      [act('go_to_url', { url: 'https://www.allrecipes.com' }, '🔗  Navigated to https://www.allrecipes.com')],
      [act('input_text', { index: 5, text: 'vegetarian lasagna' }, '⌨️  Input vegetarian lasagna into index 5')],
      [open(6, 'Search')], [scrollDown()], [scrollDown()],
      [open(31, 'Easy Vegetarian Lasagna')], [scrollDown()], [scrollDown()], [extract('4.6 stars, 812 reviews')], [back()],
      [scrollDown()], [open(44, 'Spinach Lasagna III')], [scrollDown()], [scrollDown()], [scrollDown()], [extract('4.7 stars, 1,203 reviews')], [back()],
      [scrollDown()], [scrollDown()], [open(52, "World's Best Lasagna")], [scrollDown()], [extract('4.8 stars, not vegetarian')], [back()],
      [act('done', { text: 'Spinach Lasagna III, 4.7 stars', success: true }, 'Spinach Lasagna III, 4.7 stars')],
    ];
    return rounds;
  };

  it('the same scroll or back on another page, after a click that went somewhere new, is not a repeat', () => {
    const log = playRounds(newRun(), research());
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(research().length).fill('continue'));
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => !kind.startsWith('allow'))).to.deep.equal([]);
  });

  it('the same, through two engines sharing the run through a store, taking turns', async () => {
    expect(await playTakingTurns('research', research().flat())).to.deep.equal(Array(research().length).fill('allow/continue'));
  });

  it('going back and forth between the same two pages with nothing new still stops', () => {
    const rounds: ScriptedCall[][] = [];
    for (let cycle = 0; cycle < 8; cycle++) rounds.push([more()], [{ tool: 'go_back', args: {}, outcome: { result: '🔙  Navigated back' } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.after.action).to.equal('stop');
    expect(log.length).to.be.below(16);
  });

  // From WebArena-Infinity's recorded browser-use + Gemini runs (eval/WIDE.md), both passed by the task's verifier.
  // browser-use answers "Clicked button" for any button and "Sent keys: Enter" on any page.
  it('the line another action got says nothing of this one: trashing one sender\'s mail after another, then checking each, goes on (Gmail)', () => {
    const search = (sender: string): ScriptedCall[] => [act('input', { index: 138250, text: sender, clear: true }, `Typed '${sender}'`), act('send_keys', { keys: 'Enter' }, 'Sent keys: Enter')];
    const tick = (index: number): ScriptedCall => act('click', { index }, 'Clicked input type=checkbox checkbox-state=unchecked');
    const trash = (index: number): ScriptedCall => act('click', { index }, 'Clicked button');
    const rounds: ScriptedCall[][] = [
      [act('navigate', { url: 'http://localhost:9004', new_tab: false }, '🔗 Navigated to http://localhost:9004')], search('Amazon'), [tick(140802)],
      [trash(141104), ...search('Nike')], [tick(141966), act('click', { index: 141948 }, 'Clicked button "▾"')], [trash(142187), ...search('REI')],
      [tick(142917), act('click', { index: 142899 }, 'Clicked button "▾"')], [trash(143138)], search('REI'), search('Amazon'), search('Nike'),
      [act('done', { text: 'Trashed all promotional emails from Amazon, Nike and REI.', success: true }, 'Trashed all promotional emails from Amazon, Nike and REI.')],
    ];
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(rounds.length).fill('continue'));
  });

  it('browser-use 0.7\'s `input`, `navigate`, `select_dropdown` are browser actions: the same value typed again, back to back, is not refused (Shopify theme editor)', () => {
    const typeColour = (): ScriptedCall[] => [{ tool: 'input', args: { index: 6212, text: '#1b4332', clear: true }, outcome: { result: "Typed '#1b4332'" } }];
    const log = playRounds(newRun(), [
      [{ tool: 'navigate', args: { url: 'http://localhost:8024', new_tab: false }, outcome: { result: '🔗 Navigated to http://localhost:8024' } }],
      [{ tool: 'input', args: { index: 6207, text: 'Forest', clear: true }, outcome: { result: "Typed 'Forest'" } }],
      typeColour(), typeColour(), typeColour(), typeColour(), typeColour(),
    ]);
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => !kind.startsWith('allow'))).to.deep.equal([]);
    for (const name of ['navigate', 'input', 'select_dropdown', 'dropdown_options', 'search_page', 'find_elements', 'find_text']) expect(WELL_KNOWN_BROWSER_TOOLS.has(name), name).to.equal(true);
    // Names other agents' tools carry too stay unknown.
    for (const name of ['search', 'extract', 'evaluate', 'switch', 'close']) expect(WELL_KNOWN_BROWSER_TOOLS.has(name), name).to.equal(false);
  });

  it('browser-use 0.7\'s `search_page` is a read of the page: the identical search of an unchanged page is refused', () => {
    const find = (): ScriptedCall[] => [{ tool: 'search_page', args: { pattern: 'Theme', regex: false }, outcome: { result: 'No matches found for "Theme" on page.' } }];
    const log = playRounds(newRun(), [find(), find()]);
    expect(kinds(log.flatMap((round) => round.decisions))[1]).to.match(/^refuse:/);
  });

  // ReAct on WebShop (eval/corpus/react-webshop): choosing an option answers "You have clicked
  // red." and changes nothing the agent can see; cycling through the same options is the loop.
  it('a cycle of such actions is still a loop: the same option clicks, one after another, stop', () => {
    const option = (name: string): ScriptedCall => ({ tool: 'click', args: [name], outcome: { result: `You have clicked ${name}.` } });
    const rounds: ScriptedCall[][] = [];
    for (let cycle = 0; cycle < 8; cycle++) rounds.push([option('red')], [option('3 foot')]);
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.after.action).to.equal('stop');
    expect(log.length).to.be.below(16);
  });

  it('a page that comes back the same after the same click, back to back, is still a loop (the page is in the result)', () => {
    const page = axtree('Orders | Shop', 'https://shop.example/orders', [`[50] table 'Orders'`, `\t[60] link 'Laptop'`]);
    const click = (): ScriptedCall => ({ tool: 'click', args: { bid: '77' }, outcome: { result: page } });
    const log = playRounds(newRun(), Array.from({ length: 4 }, () => [click()]));
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged', 'refuse:repeat.unchanged']);
  });
});

// Playwright MCP answers every action with the page, yet agents often look again with
// browser_snapshot after each one: a look at the page the action just showed. Seen, and no sign of a
// loop: the ladder switched browser_snapshot off on the third detail page ("write your answer from
// what you have gathered") though every click went somewhere new.
describe('a look at the page after an action (browser_snapshot) is no repeat', () => {
  const pageOf = (index: number | undefined): string[] => index === undefined
    ? ['- heading "Orders" [level=1] [ref=e1]', ...ORDERS.map((item, at) => `- link "${item}" [ref=e${10 + at}]`)]
    : [`- heading "${ORDERS[index]}" [level=1] [ref=e1]`, `- text: Order #10${index}`, `- text: Total $${(index + 1) * 25}.00`, '- button "Back to orders" [ref=e9]'];
  const act = (tool: string, args: Record<string, unknown>, index: number | undefined, offset: number): ScriptedCall =>
    ({ tool, args, outcome: { result: playwrightResult(`await page.${tool}();`, `https://shop.example/orders/${index ?? ''}`, 'Shop', pageOf(index), offset) } });
  const look = (index: number | undefined, offset: number): ScriptedCall =>
    ({ tool: 'mcp__playwright__browser_snapshot', args: {}, outcome: { result: playwrightResult('', `https://shop.example/orders/${index ?? ''}`, 'Shop', pageOf(index), offset) } });

  it('collecting the detail pages, a snapshot after every click and every back: nothing refused, never stopped', () => {
    const rounds: ScriptedCall[][] = [[act('mcp__playwright__browser_navigate', { url: 'https://shop.example/orders' }, undefined, 0)], [look(undefined, 100)]];
    ORDERS.forEach((item, index) => {
      rounds.push([act('mcp__playwright__browser_click', { element: item, ref: `e${10 + index}` }, index, 200 + index)], [look(index, 300 + index)]);
      rounds.push([act('mcp__playwright__browser_navigate_back', {}, undefined, 400 + index)], [look(undefined, 500 + index)]);
    });
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(rounds.length).fill('continue'));
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => !kind.startsWith('allow'))).to.deep.equal([]);
  });

  it('the same click landing on the same page, a snapshot after each, still stops', () => {
    const rounds: ScriptedCall[][] = [];
    for (let cycle = 0; cycle < 10; cycle++) rounds.push([act('mcp__playwright__browser_click', { element: 'Laptop', ref: 'e10' }, 0, cycle)], [look(0, 50 + cycle)]);
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.after.action).to.equal('stop');
  });

  it('two looks in a row at an unchanged page: the second is seen', () => {
    const run = newRun();
    run.beginRound();
    const finish = (call: ScriptedCall): string => run.finishCall(run.startCall({ tool: call.tool, args: call.args }), call.outcome!);
    expect([finish(act('browser_click', { ref: 'e10' }, 0, 0)), finish(look(0, 1)), finish(look(0, 2))]).to.deep.equal(['new', 'neutral', 'seen']);
  });
});

// A computer-use agent answers each action with a screenshot; a recording or a span without
// content keeps none of it (an empty answer) or a placeholder (`[image]`). Such an answer shows
// nothing of the page: every screenshot reads alike, and eight of them stopped a healthy run.
describe('a browser action whose answer shows nothing of the page (screenshots not kept)', () => {
  const computerRun = (answer: unknown): ScriptedCall[][] => {
    const act = (action: string, extra: Record<string, unknown> = {}): ScriptedCall[] => [{ tool: 'computer', args: { action, ...extra }, outcome: { result: answer } }];
    const scroll = (): ScriptedCall[] => act('scroll', { coordinate: [640, 400], scroll_direction: 'down', scroll_amount: 3 });
    const shot = (): ScriptedCall[] => act('screenshot');
    return [
      shot(), act('left_click', { coordinate: [400, 300] }), shot(), act('type', { text: 'flights to Paris' }), act('key', { text: 'Return' }), shot(),
      scroll(), shot(), scroll(), shot(), act('left_click', { coordinate: [512, 611] }), shot(), scroll(), shot(),
      act('key', { text: 'alt+Left' }), shot(), act('left_click', { coordinate: [512, 700] }), shot(), scroll(), shot(), shot(), shot(),
    ];
  };

  for (const [label, answer] of [
    ['an empty answer', ''],
    ['a placeholder text', '[image]'],
    ['a placeholder as MCP text', { content: [{ type: 'text', text: '<screenshot>' }] }],
    ['an MCP image part whose data was not kept', { content: [{ type: 'image', data: '', mimeType: 'image/png' }] }],
  ] as const) {
    it(`${label}: a healthy computer-use run is neither refused nor stopped`, () => {
      const log = playRounds(newRun(), computerRun(answer));
      expect(log.map((round) => round.after.action)).to.deep.equal(Array(computerRun(answer).length).fill('continue'));
      expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => !kind.startsWith('allow'))).to.deep.equal([]);
    });
  }

  // OpenAI's computer tool (Responses API, the Agents SDK's ComputerTool) names its action by an
  // object's `type`: `{action: {type: "scroll", scroll_y: 600}}`.
  it("OpenAI's computer_use_preview is a browser tool judged by its action's type: a healthy run with screenshots not kept goes on", () => {
    const act = (type: string, extra: Record<string, unknown> = {}): ScriptedCall[] => [{ tool: 'computer_use_preview', args: { action: { type, ...extra } }, outcome: { result: '[image]' } }];
    const rounds = [act('screenshot'), act('click', { x: 400, y: 300, button: 'left' }), act('type', { text: 'flights to Paris' }), act('keypress', { keys: ['ENTER'] }),
      ...Array.from({ length: 6 }, (_, index) => act('scroll', { x: 640, y: 400, scroll_x: 0, scroll_y: 600 * (index + 1) })), act('screenshot'), act('screenshot')];
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(rounds.length).fill('continue'));
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => !kind.startsWith('allow'))).to.deep.equal([]);
    const options = resolveOptions();
    const facts = prehashCall({ tool: 'computer_use_preview', args: { action: { type: 'scroll', scroll_y: 600 } } }, options.tool('computer_use_preview'), options.shellPolls, options.now);
    expect(facts.family).to.equal('scroll');
  });

  it('a page read that finds nothing is an empty answer like any other: the same extraction, empty again after a scroll, is seen', () => {
    const run = newRun();
    run.beginRound();
    const extract = (): string => run.finishCall(run.startCall({ tool: 'extract_content', args: { goal: 'the price' } }), { result: '' });
    const scroll = (): string => run.finishCall(run.startCall({ tool: 'scroll_down', args: {} }), { result: '🔍  Scrolled down the page by one page' });
    expect([extract(), scroll(), extract()]).to.deep.equal(['new', 'new', 'seen']);
  });

  it('the screenshots themselves, when kept, still judge the page: the same screen after the same click is a loop', () => {
    const screen = { content: [{ type: 'image', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk', mimeType: 'image/png' }] };
    const click = (): ScriptedCall[] => [{ tool: 'computer', args: { action: 'left_click', coordinate: [400, 300] }, outcome: { result: screen } }];
    const log = playRounds(newRun(), Array.from({ length: 8 }, click));
    expect(log.at(-1)!.after.action).to.equal('stop');
  });
});

// Waiting is what a wait is for: the page may change while the agent waits (a CI run page
// turning green, a search still loading). Playwright MCP's `browser_wait_for {time}`,
// BrowserGym's `noop(wait_ms)`, browser-use's `wait`, computer use's `wait` action.
describe('waiting on a page is a poll, not a repeat', () => {
  const runPage = (status: string) =>
    playwrightResult('await new Promise(f => setTimeout(f, 5 * 1000));', 'https://ci.example/run/42', 'Run 42', ['- heading "Run 42" [level=1] [ref=e3]', `- text: "Status: ${status}" [ref=e4]`]);

  it('Playwright MCP: six waits on an unchanged page, then the page changes: never refused, never stopped', () => {
    const rounds: ScriptedCall[][] = [[{ tool: 'browser_navigate', args: { url: 'https://ci.example/run/42' }, at: 0, outcome: { result: runPage('in progress') } }]];
    for (let i = 1; i <= 6; i++) rounds.push([{ tool: 'browser_wait_for', args: { time: 5 }, at: i * 6_000, outcome: { result: runPage('in progress') } }]);
    rounds.push([{ tool: 'browser_wait_for', args: { time: 5 }, at: 42_000, outcome: { result: runPage('passed') } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(8).fill('allow'));
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(8).fill('continue'));
  });

  it('the same for BrowserGym\'s noop, browser-use\'s wait and computer use\'s wait action', () => {
    const page = axtree('Run 42', 'https://ci.example/run/42', [`[12] heading 'Run 42'`, `StaticText 'Status: in progress'`]);
    for (const [tool, args] of [['noop', { wait_ms: 5000 }], ['wait', { seconds: 5 }], ['computer', { action: 'wait', duration: 5 }]] as const) {
      const rounds: ScriptedCall[][] = Array.from({ length: 7 }, (_, i) => [{ tool, args, at: i * 6_000, outcome: { result: page } }]);
      const log = playRounds(newRun(), rounds);
      expect(log.map((round) => round.decisions[0]!.action), tool).to.deep.equal(Array(7).fill('allow'));
      expect(log.map((round) => round.after.action), tool).to.deep.equal(Array(7).fill('continue'));
    }
  });

  it('past the 10-minute deadline the same wait is refused', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 12 }, (_, i) => [{ tool: 'browser_wait_for', args: { time: 60 }, at: i * 61_000, outcome: { result: runPage('in progress') } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.decisions[0]).some((decision) => decision?.action === 'refuse' && decision.reason === 'poll.deadline_passed')).to.equal(true);
  });
});

describe("WebArena's own action names (issue 18 item 2)", () => {
  it('`type` and `close_tab` are browser actions: they change the page, never the workspace, so a file read is still a repeat', () => {
    const ls: ScriptedCall = { tool: 'bash', args: { command: 'ls' }, outcome: { result: 'notes.md\n' } };
    for (const action of [
      { tool: 'type', args: { element: '[164]', text: 'running shoes', press_enter: true } },
      { tool: 'close_tab', args: {} },
    ]) {
      const log = playRounds(newRun(), [[ls], [{ ...action, outcome: { result: listPage } }], [ls]]);
      expect(kinds(log.flatMap((round) => round.decisions)), action.tool).to.deep.equal(['allow:new', 'allow:new', 'refuse:repeat.run_wide']);
    }
  });

  it('`stop` delivers the answer: never refused, never disabled', () => expectAnswerTool('stop', { answer: 'N/A' }));
});

describe("WebVoyager's action names, as its agent writes them (issue 18 item 2)", () => {
  // WebVoyager (MinorJerry/WebVoyager) answers `Click [5]`, `Type [7]; [text]`, `Scroll [WINDOW];
  // [down]`, `GoBack`, `ANSWER; [answer]`: the same actions as BrowserGym's, written in its own case.
  it('`Click` and `GoBack` are judged as pages: back on the list with its items in another order is seen, not new', () => {
    const run = newRun();
    run.beginRound();
    expect(run.finishCall(run.startCall({ tool: 'Click', args: { element: 12 } }), { result: listPage })).to.equal('new');
    expect(run.finishCall(run.startCall({ tool: 'GoBack', args: {} }), { result: shuffledListPage })).to.equal('seen');
  });

  it('`Click` and `GoBack`: a list page and its detail pages are progress', () => {
    const rounds: ScriptedCall[][] = [];
    ORDERS.forEach((_item, index) => {
      rounds.push([{ tool: 'Click', args: { element: 60 + index }, outcome: { result: detailPage(index) } }]);
      rounds.push([{ tool: 'GoBack', args: {}, outcome: { result: listPage } }]);
    });
    const log = playRounds(newRun(), rounds);
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => kind.startsWith('refuse'))).to.deep.equal([]);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  it('`ANSWER` delivers the answer: never refused, never disabled', () => expectAnswerTool('ANSWER', { content: '$25' }));

  it('`Wait` is a wait: on a page still loading, the third and fourth are not refused (they were, withholding the loaded page)', () => {
    const loading = axtree('Flights', 'https://flights.example/search', [`[40] link 'Home'`, `StaticText 'Loading results…'`]);
    const loaded = axtree('Flights', 'https://flights.example/search', [`[40] link 'Home'`, `[60] link 'Flight 1, $200'`, `[61] link 'Flight 2, $250'`]);
    const wait = (page: string): ScriptedCall => ({ tool: 'Wait', args: {}, outcome: { result: page } });
    const log = playRounds(newRun(), [[{ tool: 'Click', args: { element: 5 }, outcome: { result: loading } }], [wait(loading)], [wait(loading)], [wait(loading)], [wait(loaded)]]);
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => kind.startsWith('refuse'))).to.deep.equal([]);
    // Open Operator writes it `WAIT`.
    expect(kinds(playRounds(newRun(), [1, 2, 3, 4].map(() => [{ tool: 'WAIT', args: {}, outcome: { result: 'Waited' } }])).flatMap((round) => round.decisions)).filter((kind) => kind.startsWith('refuse'))).to.deep.equal([]);
  });

  it('no two browser tools fold to one name (policy.ts looks them up folded only)', () => {
    const folded = [...WELL_KNOWN_BROWSER_TOOLS.keys()].map((name) => name.toLowerCase().replace(/[_-]/g, ''));
    expect(new Set(folded).size).to.equal(folded.length);
  });

  it('only the browser, answer and wait tables fold case: `Read` is Claude Code\'s read, `READ` is a tool of unknown effect', () => {
    const decided = (tool: string) => {
      const call: ScriptedCall = { tool, args: { file_path: 'a.md' }, outcome: { result: '# a' } };
      return kinds(playRounds(newRun(), [[call], [call], [call]]).flatMap((round) => round.decisions));
    };
    // A known read is refused on its first repeat; a tool of unknown effect once its outcome confirmed it.
    expect(decided('Read')).to.deep.equal(['allow:new', 'refuse:repeat.run_wide', 'refuse:repeat.run_wide']);
    expect(decided('READ')).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged']);
  });
});

// The agents of the published open web-agent comparisons on WebVoyager: browser-use before 0.2,
// Notte's agent and Convergence's proxy-lite, each in its own action names (browser-use's
// controller/service.py, notte_core's actions, proxy-lite's tools/browser_tool.py at a4389c5).
describe('browser-use before 0.2, Notte and proxy-lite, in their own action names (issue 18 item 2)', () => {
  const recipes = (page: number) => JSON.stringify({ recipes: [1, 2, 3].map((item) => ({ name: `Lasagna ${page}-${item}`, reviews: 100 * page + item })) });
  const paging = (tool: string, click: ScriptedCall, read: (page: number) => ScriptedCall, pages: number): ScriptedCall[][] => {
    const rounds: ScriptedCall[][] = [[act(tool, { url: 'https://www.allrecipes.com' }, 'Navigated to https://www.allrecipes.com')]];
    for (let page = 1; page <= pages; page++) rounds.push([read(page)], [click]);
    return rounds;
  };
  // browser-use 0.1 answers every click on "Next" with the same line, on whichever page it lands.
  const next = act('click_element', { index: 40 }, '🖱️  Clicked button with index 40: Next');
  const extract = (page: number) => act('extract_content', { goal: 'list the recipe names and review counts' }, `📄  Extracted from page\n: ${recipes(page)}\n`);

  it('browser-use 0.1: the same `click_element` on "Next" between extractions that find new recipes is never refused (the third was, and the run stopped on page 4)', () => {
    const log = playRounds(newRun(), paging('go_to_url', next, extract, 7));
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => !kind.startsWith('allow'))).to.deep.equal([]);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
    expect(WELL_KNOWN_BROWSER_TOOLS.has('search_google')).to.equal(true);
  });

  it('browser-use 0.1: a "Next" that does nothing (the same recipes every time) is a loop, stopped within 5 stale calls', () => {
    const log = playRounds(newRun(), paging('go_to_url', next, () => extract(1), 8));
    const stoppedAt = log.findIndex((round) => round.after.action === 'stop');
    // Rounds 1–3 learn something (the page, its recipes, the first click); every later one is stale.
    expect(stoppedAt).to.be.within(3, 3 + 5);
  });

  it('Notte: the same Enter pressed after each search typed is an input, its answer no repeat; `completion` delivers the answer', () => {
    const rounds: ScriptedCall[][] = [[act('goto', { url: 'https://huggingface.co/models' }, "Navigated to 'https://huggingface.co/models' in current tab")]];
    for (const query of ['cc-by-sa-4.0', 'license:cc-by-sa-4.0', 'cc-by-sa', 'cc by sa']) {
      rounds.push([act('fill', { id: 'I1', value: query }, `Filled the input field 'Filter by name' with the value: '${query}'`)]);
      rounds.push([act('press_key', { key: 'Enter' }, 'Pressed the keyboard key: Enter')]);
    }
    const log = playRounds(newRun(), rounds);
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => kind === 'allow:seen' || kind.startsWith('refuse'))).to.deep.equal([]);
    expectAnswerTool('completion', { success: true, answer: 'bert-base, 1.2k likes' });
  });

  it('UI-TARS: paging a document with the same `hotkey`, answered the same line on every screen, is never refused; `finished` and `call_user` deliver', () => {
    const rounds: ScriptedCall[][] = [[act('click', { start_box: '[412, 230]' }, 'Clicked at (412, 230)')]];
    for (let page = 0; page < 6; page++) rounds.push([act('hotkey', { key: 'pagedown' }, 'Pressed pagedown')]);
    const log = playRounds(newRun(), rounds);
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => !kind.startsWith('allow'))).to.deep.equal([]);
    for (const name of ['left_double', 'right_single', 'drag']) expect(WELL_KNOWN_BROWSER_TOOLS.has(name), name).to.equal(true);
    expectAnswerTool('finished', { content: 'The invoice total is $1,240' });
    expectAnswerTool('call_user', {});
  });

  it('proxy-lite: leaving each result page with `back`, answered with nothing, is never refused; `return_value` delivers the answer', () => {
    const rounds: ScriptedCall[][] = [[act('goto', { url: 'https://www.google.com' }, '')]];
    for (const mark of [3, 5, 7, 9]) rounds.push([act('click', { mark_id: mark }, '')], [act('scroll', { direction: 'down', mark_id: 0 }, '')], [act('back', {}, '')]);
    const log = playRounds(newRun(), rounds);
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => !kind.startsWith('allow'))).to.deep.equal([]);
    expectAnswerTool('return_value', { value: 'Spinach Lasagna, 4.7 stars' });
  });
});
