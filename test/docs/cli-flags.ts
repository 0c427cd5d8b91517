// The CLI's flags against the docs, both ways: a flag the docs show on a `loopguard <command>`
// line must be one `loopguard <command> --help` lists, and every flag `--help` lists must be
// documented. Documented means: written on a `loopguard <command>` line (a code block, with `\`
// continuations joined, or an inline code span), or the first cell of an option table row on the
// command's own page. Flags after ` -- ` belong to the program behind it (mcp-proxy's server).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Lexer, walkTokens, type Token } from 'marked';
import { main } from '../../src/cli/main.js';
import { documentationFiles } from './markdown-docs.js';

/** The page that documents each command's options (its option table or usage line). */
export const COMMAND_PAGES: Readonly<Record<string, string>> = {
  replay: 'docs/replay-and-evaluation.md',
  runs: 'docs/operations/runs-cli.md',
  'mcp-proxy': 'docs/integrations/mcp.md',
  serve: 'docs/serve.md',
};

/** What `main(argv)` prints on stdout. */
export async function cliOutput(argv: string[]): Promise<string> {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  await main(argv, { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {} });
  return text;
}

/** `loopguard --help` and `loopguard <command> --help` for every command it lists (key '' is the top level). */
export async function helpTexts(): Promise<Map<string, string>> {
  const top = await cliOutput(['--help']);
  const texts = new Map([['', top]]);
  for (const command of commandsIn(top)) texts.set(command, await cliOutput([command, '--help']));
  return texts;
}

/** The commands a top-level help lists (commander's built-in `help` left out). */
export function commandsIn(topHelp: string): string[] {
  const section = topHelp.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z0-9-]*)\b/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
}

/** The long flags an option list of a help text declares (`--help` left out). */
export function flagsInHelp(help: string): string[] {
  const options = help.split(/^Options:$/m)[1]?.split(/^\S/m)[0] ?? '';
  return [...options.matchAll(/^ {2}(?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)/gm)].map((match) => match[1]!).filter((flag) => flag !== '--help');
}

export interface DocumentedFlag {
  command: string;
  flag: string;
  where: string;
}

const FLAG = /(?<![\w-])(--[a-z][a-z0-9-]*)/g;

/** Flags written after `loopguard <command>` in one logical line, up to a comment, a pipe or ` -- `. */
function flagsOnCommandLine(line: string): Array<{ command: string; flag: string }> {
  const found: Array<{ command: string; flag: string }> = [];
  for (const match of line.matchAll(/\bloopguard\s+([a-z][a-z0-9-]*)\b([^\n]*)/g)) {
    const rest = match[2]!.split(/\s(?:#|\||&&|;|>|--)(?:\s|$)|\s+--$/)[0]!;
    for (const [, flag] of rest.matchAll(FLAG)) found.push({ command: match[1]!, flag: flag! });
  }
  return found;
}

/** Every flag the documentation writes for a `loopguard` command. */
export function documentedFlags(root: string, files = documentationFiles(root)): DocumentedFlag[] {
  const found: DocumentedFlag[] = [];
  for (const file of files) {
    const tokens = new Lexer().lex(readFileSync(join(root, file), 'utf8'));
    const pageOf = Object.entries(COMMAND_PAGES).find(([, page]) => page === file)?.[0];
    let line = 1;
    for (const top of tokens) {
      walkTokens([top], (token: Token) => {
        if (token.type === 'code') {
          const lines = (token as { text: string }).text.replace(/\\\n\s*/g, ' ').split('\n');
          for (const text of lines) for (const hit of flagsOnCommandLine(text)) found.push({ ...hit, where: `${file}:${line}` });
        }
        if (token.type === 'codespan') {
          for (const hit of flagsOnCommandLine((token as { text: string }).text)) found.push({ ...hit, where: `${file}:${line}` });
        }
      });
      // An option table on the command's own page: rows whose first cell starts with a flag.
      if (pageOf !== undefined && top.type === 'table') {
        for (const row of (top as { rows: Array<Array<{ text: string }>> }).rows) {
          const first = /^`(--[a-z][a-z0-9-]*)/.exec(row[0]?.text ?? '');
          if (first) found.push({ command: pageOf, flag: first[1]!, where: `${file}:${line}` });
        }
      }
      line += top.raw.split('\n').length - 1;
    }
  }
  return found;
}

/** Both directions of the check; each problem is one line naming the file and line or the command. */
export function checkCliFlags(root: string, help: Map<string, string>, files = documentationFiles(root)): string[] {
  const problems: string[] = [];
  const commands = commandsIn(help.get('')!);
  const documented = documentedFlags(root, files);
  for (const { command, flag, where } of documented) {
    if (!commands.includes(command)) {
      problems.push(`${where}: loopguard ${command} ${flag}: loopguard has no command "${command}" (commands: ${commands.join(', ')})`);
    } else if (!flagsInHelp(help.get(command)!).includes(flag)) {
      problems.push(`${where}: loopguard ${command} ${flag}: not an option of loopguard ${command} (--help lists ${flagsInHelp(help.get(command)!).join(' ')})`);
    }
  }
  for (const command of commands) {
    const page = COMMAND_PAGES[command];
    if (page === undefined || !existsSync(join(root, page))) {
      problems.push(`loopguard ${command}: no documentation page (COMMAND_PAGES in test/docs/cli-flags.ts names ${page ?? 'none'})`);
      continue;
    }
    for (const flag of flagsInHelp(help.get(command)!)) {
      if (!documented.some((entry) => entry.command === command && entry.flag === flag)) {
        problems.push(`loopguard ${command} ${flag}: listed by --help but documented nowhere (add it to ${page})`);
      }
    }
  }
  return problems;
}

/**
 * Help that teaches: the top-level help lists each command with a one-line purpose and shows
 * examples; each command's help shows at least two examples of itself; every example uses only
 * flags its command has.
 */
export function checkHelpExamples(help: Map<string, string>): string[] {
  const problems: string[] = [];
  const top = help.get('')!;
  const commands = commandsIn(top);
  const listing = top.split(/^Commands:$/m)[1]?.split(/^\S/m)[0] ?? '';
  for (const command of commands) {
    const line = listing.split('\n').find((text) => text.startsWith(`  ${command} `));
    const purpose = line?.replace(/^ {2}\S+(?: \S+)*? {2,}/, '') ?? '';
    if (purpose === '' || purpose.length > 110) problems.push(`loopguard --help: "${command}" needs a one-line purpose (commander's .summary()), got: ${JSON.stringify(purpose)}`);
  }
  const examples = (text: string) => [...text.matchAll(/^ {2}\$ (loopguard [^\n]*)$/gm)].map((match) => match[1]!);
  if (examples(top).length === 0) problems.push('loopguard --help: no "Examples:" lines ("  $ loopguard …")');
  for (const command of commands) {
    const own = examples(help.get(command)!).filter((example) => example.startsWith(`loopguard ${command} `));
    if (own.length < 2) problems.push(`loopguard ${command} --help: ${own.length} example(s) of the command, want at least 2 ("  $ loopguard ${command} …" after Examples:)`);
  }
  for (const [where, text] of help) {
    for (const example of examples(text)) {
      for (const { command, flag } of flagsOnCommandLine(example)) {
        if (!commands.includes(command)) problems.push(`loopguard ${where} --help: example "${example}" runs no command of loopguard`);
        else if (!flagsInHelp(help.get(command)!).includes(flag)) problems.push(`loopguard ${where} --help: example "${example}" uses ${flag}, not an option of loopguard ${command}`);
      }
    }
  }
  return problems;
}
