import { expect } from 'chai';
// The corpus build scripts are plain Node modules with no types; only their outputs are used here.
// @ts-expect-error untyped .mjs
import { analyzeLoop } from '../../eval/corpus/scripts/lib.mjs';
// @ts-expect-error untyped .mjs
import { parseAction } from '../../eval/corpus/scripts/src-browsergym-workarena.mjs';

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
