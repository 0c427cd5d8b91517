// The documentation as data for the docs checks: which Markdown files are the docs, their links
// and headings (through marked's lexer, so link-like text in code is never a link), GitHub's
// heading anchors, and the link check itself. Each check takes a root directory, so its tests can
// plant a defect in a temporary copy.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Lexer, walkTokens, type Token } from 'marked';

/** README.md, CHANGELOG.md, CONTRIBUTING.md and every Markdown file under docs/, repo-relative, `/`-separated. */
export function documentationFiles(root: string): string[] {
  const files = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md'].filter((file) => existsSync(join(root, file)));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  return files;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The heading's text as rendered (code spans, emphasis and links reduced to their text). */
function plainText(tokens: Token[] | undefined, raw: string): string {
  if (tokens === undefined) return raw;
  return tokens
    .map((token) => ('tokens' in token && token.tokens ? plainText(token.tokens, '') : 'text' in token ? String(token.text) : ''))
    .join('')
    .replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);
}

/** GitHub's anchor for a heading text (github-slugger: lower case, punctuation and symbols dropped, spaces to hyphens). */
export function githubSlug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

export interface MarkdownLink {
  href: string;
  /** 1-based line of the token that holds the link. */
  line: number;
}

export interface ParsedMarkdown {
  links: MarkdownLink[];
  /** Every anchor the rendered page has: heading slugs (numbered when repeated) and explicit `id`/`name` attributes. */
  anchors: Set<string>;
}

export function parseMarkdown(text: string): ParsedMarkdown {
  const tokens = new Lexer().lex(text);
  const links: MarkdownLink[] = [];
  const anchors = new Set<string>();
  const slugCounts = new Map<string, number>();
  let line = 1;
  for (const top of tokens) {
    walkTokens([top], (token) => {
      if (token.type === 'link' || token.type === 'image') links.push({ href: (token as { href: string }).href, line });
      if (token.type === 'html') {
        for (const [, href] of (token as { raw: string }).raw.matchAll(/\b(?:href|src)="([^"]+)"/g)) links.push({ href: href!, line });
        for (const [, id] of (token as { raw: string }).raw.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(id!);
      }
      if (token.type === 'heading') {
        const slug = githubSlug(plainText((token as { tokens?: Token[] }).tokens, (token as { text: string }).text));
        const seen = slugCounts.get(slug) ?? 0;
        slugCounts.set(slug, seen + 1);
        anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
      }
    });
    line += top.raw.split('\n').length - 1;
  }
  return { links, anchors };
}

export interface LinkProblem {
  where: string;
  href: string;
  problem: string;
}

/**
 * Every relative link and anchor of the documentation resolves: the file (or folder) exists in
 * the repository, and an anchor into a Markdown file names one of its headings. External links
 * (http, mailto) are not fetched: CI has no network to spare, and they are few.
 */
export function checkLinks(root: string, files = documentationFiles(root)): LinkProblem[] {
  const parsed = new Map<string, ParsedMarkdown>();
  const parse = (file: string): ParsedMarkdown => {
    let result = parsed.get(file);
    if (result === undefined) parsed.set(file, (result = parseMarkdown(readFileSync(join(root, file), 'utf8'))));
    return result;
  };
  const problems: LinkProblem[] = [];
  for (const file of files) {
    for (const { href, line } of parse(file).links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // http:, https:, mailto:
      const where = `${file}:${line}`;
      const [pathPart, anchor] = href.split('#', 2) as [string, string | undefined];
      const target = pathPart === '' ? file : relative(root, resolve(root, dirname(file), decodeURIComponent(pathPart))).split(sep).join('/');
      if (target.startsWith('..')) {
        problems.push({ where, href, problem: 'points outside the repository' });
        continue;
      }
      if (!existsSync(join(root, target))) {
        problems.push({ where, href, problem: `${target} does not exist` });
        continue;
      }
      if (anchor === undefined || anchor === '' || !target.endsWith('.md') || statSync(join(root, target)).isDirectory()) continue;
      if (!parse(target).anchors.has(anchor)) problems.push({ where, href, problem: `${target} has no heading with the anchor #${anchor}` });
    }
  }
  return problems;
}

/**
 * Pages reachable from README.md, with the number of links it takes (README itself is 0),
 * following links between the repository's Markdown files.
 */
export function linkDistances(root: string): Map<string, number> {
  const distance = new Map<string, number>([['README.md', 0]]);
  let frontier = ['README.md'];
  for (let depth = 1; frontier.length > 0; depth += 1) {
    const next: string[] = [];
    for (const file of frontier) {
      for (const { href } of parseMarkdown(readFileSync(join(root, file), 'utf8')).links) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
        const pathPart = href.split('#', 1)[0]!;
        if (pathPart === '') continue;
        const target = relative(root, resolve(root, dirname(file), decodeURIComponent(pathPart))).split(sep).join('/');
        if (!target.endsWith('.md') || distance.has(target) || !existsSync(join(root, target))) continue;
        distance.set(target, depth);
        next.push(target);
      }
    }
    frontier = next;
  }
  return distance;
}
