import { hashItemRanges, hashPrefixed } from '../hash.js';
import type { NoiseFilter } from '../noise/create-noise-filter.js';
import type { PrehashedOutcome } from '../types.js';

/**
 * The page-state model for browser and GUI agents (issue 18 item 2). A browser action's
 * result is the page it leads to (an accessibility tree: BrowserGym's AXTree text, a
 * Playwright MCP snapshot), so a page is judged node by node:
 *
 * - a node is one line of the tree, without the ids the tool gives elements (`[a85]`,
 *   `[ref=e12]`: numbered per snapshot, so the same page reached again would look new) and
 *   without the tool's own echo of the action (Playwright MCP's "Ran Playwright code" block);
 * - a page is new when it shows a node the run has not seen: the next detail page of a list
 *   (only its item differs), a form field now showing its value, a scrolled viewport;
 * - a page whose every node was seen before is already seen: the list page the agent comes
 *   back to, a click that landed on the same page, the same few pages in a cycle.
 *
 * The whole-page fingerprint is over the nodes too, so a page seen whole costs no item work.
 * A result with no tree in it (a screenshot, a text) is judged as any result is, except one
 * line about the action itself run again straight after itself (describesAction, below).
 */

/** Pages longer than this are judged whole (bounded per-call work), like long lists. */
const MAX_NODES = 4096;

/** Element ids that number nodes per snapshot: `[ref=e12]`, `[a85]`/`[123]` bids, `bid=…`. */
// A ref's id is short, on its line, and holds no `[` (`[^\]\n[]{0,64}`): `[^\]]*` read to the end of the page from every unclosed `[ref=`.
export const ELEMENT_ID = /\[ref=[^\]\n[]{0,64}\]|^\s*\[[A-Za-z]*\d+\]\s*|\bbid=['"]?[\w-]+['"]?,?\s*|\[cursor=pointer\]|\[active\]/g;

/** The text of a page result: a string, or the text parts of an MCP tool result. */
function pageText(result: unknown): string | undefined {
  if (typeof result === 'string') return result;
  if (typeof result !== 'object' || result === null) return undefined;
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const part of content) {
    if (typeof part !== 'object' || part === null) continue;
    const typed = part as { type?: unknown; text?: unknown };
    if (typed.type === 'text' && typeof typed.text === 'string') text += `${typed.text}\n`;
  }
  return text === '' ? undefined : text;
}

/** Does this line look like an accessibility-tree node (Playwright `- role "name"`, BrowserGym `[bid] role 'name'`, `RootWebArea`)? */
function isNodeLine(line: string): boolean {
  return /^\s*(?:- |\[[A-Za-z]*\d+\] |RootWebArea\b|WebArea\b)/.test(line);
}

/**
 * Fingerprint of a browser tool's result as a page: undefined when it carries no
 * accessibility tree (then the ordinary fingerprint applies). `noiseFilter` is the tool's
 * (policy.ts; undefined with `resultNoise: false`): what ticks on a page between two looks (`3
 * minutes ago`, `Last checked: 16:10:07`) is noise there as in any result. Read as a node, each
 * tick made the same page new, and the same click answered by it ran until a budget.
 */
export function fingerprintPage(result: unknown, maxBytes: number, noiseFilter?: NoiseFilter): PrehashedOutcome | undefined {
  const raw = pageText(result);
  if (raw === undefined || raw.length > maxBytes) return undefined;
  const text = noiseFilter === undefined ? raw : noiseFilter(raw);
  const lines = text.split('\n');
  // Only a result that holds a tree is a page; then every line is one of its nodes (BrowserGym's
  // `StaticText '…'` lines carry the content and have no id of their own).
  if (!lines.some(isNodeLine)) return undefined;
  let normalized = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let inCode = false;
  for (const line of lines) {
    // Playwright MCP echoes the code it ran (```js … ```): the action, not the page.
    if (line.trimStart().startsWith('```')) {
      inCode = !inCode && /^\s*```(?:js|javascript|ts)\b/.test(line);
      continue;
    }
    if (inCode) continue;
    if (line.trimStart().startsWith('#')) continue; // Playwright MCP's section headings
    const node = line.replace(ELEMENT_ID, '').trim();
    if (node === '' || node === '-' || node === '- generic' || node === '- generic:') continue;
    starts.push(normalized.length);
    normalized += node;
    ends.push(normalized.length);
    normalized += '\n';
  }
  if (starts.length === 0) return undefined;
  const prehashed: PrehashedOutcome = { outcome: 'success', resultHash: hashPrefixed('p:', normalized) };
  if (starts.length <= MAX_NODES) {
    let items: number[] | undefined;
    // Lazy like list items (result-fingerprint.ts): a page seen whole never pays for its nodes.
    Object.defineProperty(prehashed, 'items', {
      enumerable: true,
      configurable: true,
      get: () => {
        if (items === undefined) {
          items = new Array<number>(starts.length);
          hashItemRanges(normalized, starts, ends, items);
        }
        return items;
      },
    });
  }
  return prehashed;
}

/**
 * Does a browser action's answer show nothing of the page: a screenshot the recording or the span
 * did not keep? A placeholder text (`[image]`, `<screenshot>`, `[Image: page.png]`), or an MCP
 * result made only of image parts without their data. An image kept is data like any other:
 * the same screenshot after the same click is the same page. (An empty answer is read as empty
 * before this, and judged the same way: run-guard.ts judgeNovelty.)
 */
export function showsNoPage(result: unknown): boolean {
  if (typeof result === 'string') return IMAGE_PLACEHOLDER.test(result);
  if (typeof result !== 'object' || result === null) return false;
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content) || content.length === 0) return false;
  for (const part of content) {
    if (typeof part !== 'object' || part === null) return false;
    const typed = part as { type?: unknown; text?: unknown; data?: unknown };
    if (typed.type === 'text' && typeof typed.text === 'string' && IMAGE_PLACEHOLDER.test(typed.text)) continue;
    if (typed.type === 'image' && (typed.data === undefined || typed.data === '')) continue;
    return false;
  }
  return true;
}

/** `[image]`, `<screenshot>`, `(Image omitted)`, `[Image: page.png]`: a short bracketed word for an image, alone. */
const IMAGE_PLACEHOLDER = /^\s*[[<(]\s*(?:image|img|screenshot|picture)\b[^\]>)\n]{0,60}[\]>)]\s*$/i;

/** Longer answers, or answers of more than one line, say something about the page. */
const MAX_ACTION_LINE_LENGTH = 200;

/**
 * Is a browser action's answer one line about the action itself — browser-use's "🖱️  Clicked
 * button with index 31: More", "🔍  Scrolled down the page by one page", WebShop's "You have
 * clicked red." — rather than the page? Then where the page went is not in the answer: the
 * same click on "More" is the next page of a list and the same scroll is further down, yet
 * both answer as before. A string, or an MCP result whose text parts make one such line.
 */
export function describesAction(result: unknown): boolean {
  const text = pageText(result)?.trim();
  return text !== undefined && text.length <= MAX_ACTION_LINE_LENGTH && !text.includes('\n') && !isJsonText(text);
}

/**
 * The text of a browser action's answer when its first words say the action failed ("Error:
 * Invalid action!", "TimeoutError: …", "Could not find element 12", BrowserGym's "Error:
 * ValueError: …" before the page), else undefined. Such an answer is the failure, as the same
 * error thrown is (result-fingerprint.ts): no page moved. Read as a page or as a line about the
 * action, WebShop's invalid click returned as text ran twelve times and was never refused, where
 * its thrown form is refused from the fifth round; BrowserGym's rejected steps as text were pages
 * seen again.
 */
export function failureReportedBy(result: unknown): string | undefined {
  const text = pageText(result);
  return text !== undefined && REPORTS_FAILURE.test(text.slice(0, 64)) ? text.trimEnd() : undefined;
}

// Up to the first word: symbols and spaces (browser-use's emoji), never the start of JSON data.
const REPORTS_FAILURE = /^[^\p{L}\p{N}{["]*(?:\w*(?:Error|Exception)\b|Invalid\b|Failed\b|Failure\b|Could(?:n't| not)\b|Can(?:'t|not)\b|Unable\b|Timed? ?out\b|No such\b)/iu;

/** A JSON object or array as text is data (judged as the value it stands for), not a line about the action. */
function isJsonText(text: string): boolean {
  if (!(text.startsWith('{') || text.startsWith('['))) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Actions that type or choose a value: the page may not show what they changed. */
const INPUT_ACTIONS: ReadonlySet<string> = new Set([
  'fill', 'clear', 'select_option', 'press', 'keyboard_type', 'keyboard_press', 'upload_file',
  'browser_type', 'browser_fill_form', 'browser_select_option', 'browser_press_key', 'browser_file_upload',
  'input_text', 'send_keys', 'select_dropdown_option', 'input', 'select_dropdown',
  // Notte's; UI-TARS's
  'press_key', 'fallback_fill', 'multi_factor_fill', 'hotkey',
  // `browser_action` / `computer` actions (the call's family)
  'type', 'key',
]);

/**
 * A form input whose page came back unchanged is not a loop signal: the value typed may not
 * be shown in the tree (BrowserGym does not render every field's value), so a form filled
 * field by field would read as "the same page" five times. The first time a field gets a
 * value counts as neither new nor seen (round-verdict.ts: neutral); the same input again on
 * the same page is judged as a repeat like any call.
 */
export function isPageInputAction(tool: string, family: string | undefined): boolean {
  return INPUT_ACTIONS.has(family ?? tool);
}

/** Looks at the current page that change nothing: Playwright MCP's, and a `computer` tool's `screenshot` action. */
const PAGE_LOOKS: ReadonlySet<string> = new Set(['browser_snapshot', 'browser_take_screenshot', 'screenshot']);

/**
 * A look at the page (Playwright MCP's `browser_snapshot`, a screenshot) after a page action shows
 * the page that action already answered with: seen, yet no sign of a loop — the agent checking
 * where it landed. Agents do it after every action; judged seen, the ladder switched
 * `browser_snapshot` off on a healthy run whose every click went somewhere new. Two looks with
 * nothing moving the page in between are judged as any repeat (run-guard.ts finishCall).
 */
export function isPageLook(tool: string, family: string | undefined): boolean {
  return PAGE_LOOKS.has(family ?? tool);
}
