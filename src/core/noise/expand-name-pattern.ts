/**
 * Every string a regular-expression source written only with literal name characters,
 * `(?:…|…)` groups, one-character classes like `[tT]` and `?` matches, in full. Used to turn
 * the noise rules' member-name patterns (result-noise-rules.ts) into a set of key names the
 * JSON text scan can look keys up in; any other syntax throws, so a rule written with `*` or
 * `\d` later cannot leave the set silently smaller than its pattern.
 */
export function expandNamePattern(source: string): string[] {
  let at = 0;

  function alternation(): string[] {
    const out = sequence();
    while (source[at] === '|') {
      at++;
      out.push(...sequence());
    }
    return out;
  }

  function sequence(): string[] {
    let out = [''];
    while (at < source.length && source[at] !== '|' && source[at] !== ')') {
      let atom: string[];
      const character = source[at]!;
      if (source.startsWith('(?:', at)) {
        at += 3;
        atom = alternation();
        if (source[at] !== ')') throw new SyntaxError(`expandNamePattern: unclosed group at ${at} in ${source}`);
        at++;
      } else if (character === '[') {
        const close = source.indexOf(']', at);
        if (close < 0) throw new SyntaxError(`expandNamePattern: unclosed class at ${at} in ${source}`);
        atom = [...source.slice(at + 1, close)];
        for (const member of atom) if (!/^[A-Za-z0-9_]$/.test(member)) throw new SyntaxError(`expandNamePattern: class member ${member} in ${source}`);
        at = close + 1;
      } else if (/^[A-Za-z0-9_-]$/.test(character)) {
        atom = [character];
        at++;
      } else {
        throw new SyntaxError(`expandNamePattern: unsupported ${character} at ${at} in ${source}`);
      }
      if (source[at] === '?') {
        atom = [...atom, ''];
        at++;
      }
      const joined: string[] = [];
      for (const head of out) for (const tail of atom) joined.push(head + tail);
      out = joined;
    }
    return out;
  }

  const names = alternation();
  if (at !== source.length) throw new SyntaxError(`expandNamePattern: unexpected ${source[at]} at ${at} in ${source}`);
  return names;
}
