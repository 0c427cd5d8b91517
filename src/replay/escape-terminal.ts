/**
 * C0 and C1 controls, DEL, line/paragraph separators and bidirectional overrides. Printed
 * raw, text from an input file (run ids, tool and span names, error messages) could clear
 * the screen, move the cursor or reorder a line to draw a fake "OK"; NO_COLOR does not help.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Makes text from an input safe to print: each unsafe character becomes a visible `\xHH` / `\uHHHH`. */
export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** escapeControl for multi-line text we print ourselves (help, usage errors): newlines stay. */
export function escapeControlKeepingLines(text: string): string {
  return text.split('\n').map(escapeControl).join('\n');
}

/** JSON.stringify leaves DEL, C1 controls and bidi overrides raw; escape them (still valid JSON, same value). */
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
export function escapeJsonText(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
