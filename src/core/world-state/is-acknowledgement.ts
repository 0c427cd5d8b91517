import { isStatusKey, MOVING_VALUE } from './says-in-progress.js';

/**
 * Is this result only an acknowledgement — "done", with no fact about the world in it
 * (issue 24 #5)? Slack's Web API answers `{"ok":true}`, Linear's GraphQL mutations
 * `{"data":{"issueAddLabel":{"success":true}}}`, Elasticsearch `{"acknowledged":true}`. The
 * same acknowledgement for another target is not a stale result: it says nothing new because
 * it says nothing at all. A yes/no verdict is judged alike (below). A result with anything else
 * in it (an id, a count, a name) is judged as data, and `{"ok":false}` is no acknowledgement.
 *
 * Only structured results: a bare "OK." is what WebShop's `think[...]` answers, and treating
 * it as an acknowledgement let a WebShop loop cycling through thoughts and clicks escape the
 * chat profile's stop on the real runs in EVAL.md (react-webshop-fixed_105).
 */
export function isAcknowledgement(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  let object = value as Record<string, unknown>;
  // GraphQL and RPC envelopes: `{data: {mutationName: {...}}}`, a few single keys deep.
  for (let depth = 0; depth < MAX_ENVELOPE_DEPTH; depth++) {
    const keys = Object.keys(object);
    if (keys.length !== 1) break;
    const inner = object[keys[0]!];
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) break;
    object = inner as Record<string, unknown>;
  }
  // A verdict of yes/no flags (`{"in_stock": false}`, `{"available": true, "backorder": false}`),
  // or a thing's settled state alone (`{"status": "delivered"}`), tells only about what the call
  // asked, so the same verdict for another SKU, date or order is no seen result either. Judged
  // seen, a run checking the stock of eight items one at a time, all in stock, or the status of
  // eight orders, all delivered, was stopped at the sixth (stale_rounds). A bare `false` stays
  // data (a refusal), and so does a short answer under any other name: `{"answer": "30 days"}` for a
  // reworded question is document 000's same answer again.
  if (isVerdict(object)) return true;
  const keys = Object.keys(object);
  if (keys.length === 0 || keys.length > MAX_KEYS) return false;
  let affirmed = false;
  for (const key of keys) {
    const field = object[key];
    if (!ACKNOWLEDGEMENT_KEYS.has(key.toLowerCase())) return false;
    if (field === null || field === undefined) continue;
    if (field === true || (typeof field === 'string' && ACKNOWLEDGEMENT_WORDS.has(normalized(field)))) affirmed = true;
    else return false;
  }
  return affirmed;
}

/**
 * One to {@link MAX_KEYS} members, each a boolean not under an acknowledgement's own key (`{"ok":
 * false}` reports a failure), or a status's state name (letters, spaces, `_`, `-`: an id has
 * digits) neither failed nor still moving (a reworded poll answered `running` again is judged as any call).
 */
function isVerdict(object: Record<string, unknown>): boolean {
  let count = 0;
  for (const key in object) {
    const field = object[key];
    if (++count > MAX_KEYS) return false;
    if (typeof field === 'boolean') {
      if (ACKNOWLEDGEMENT_KEYS.has(key.toLowerCase())) return false;
    } else if (typeof field !== 'string' || !isStatusKey(key) || !STATE_WORD.test(field) || FAILED_STATE.test(field) || MOVING_VALUE.test(field)) {
      return false;
    }
  }
  return count > 0;
}

const STATE_WORD = /^[A-Za-z][A-Za-z_ -]{0,31}$/;
const FAILED_STATE = /^(?:error|errored|fail|failed|failure|invalid|denied|forbidden|unauthorized|rejected|not[_ -]?found|unknown)$/i;

const MAX_ENVELOPE_DEPTH = 3;
/** `{ok, error: null, warning: null}` is the widest acknowledgement seen in real APIs. */
const MAX_KEYS = 3;
const ACKNOWLEDGEMENT_KEYS = new Set(['ok', 'success', 'succeeded', 'status', 'acknowledged', 'done', 'result', 'error', 'errors', 'warning', 'updated', 'applied']);
const ACKNOWLEDGEMENT_WORDS = new Set(['ok', 'okay', 'done', 'success', 'succeeded', 'successful', 'true', 'acknowledged', 'accepted', 'applied', 'updated', 'saved', 'completed', 'complete']);

/** "OK.", " Done! " → "ok", "done". */
function normalized(text: string): string {
  return text.length > 24 ? '' : text.trim().replace(/[.!]+$/, '').toLowerCase();
}
