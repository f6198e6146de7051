import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A line of a Markdown file with its 1-based number, for messages that name it. */
export interface NumberedLine {
  readonly number: number;
  readonly text: string;
}

/** A fenced code block: its info string and its lines (the fences left out). */
export interface FencedBlock {
  readonly info: string;
  readonly lines: readonly NumberedLine[];
}

/**
 * A Markdown file read for the suite: its fenced blocks and lines, each named `<file>:<line>` in
 * failure messages, so a test says which line of the README stopped being true.
 *
 * @example
 * ```ts
 * const readme = await Markdown.read(ROOT, 'README.md');
 * const serve = readme.block('sh', (text) => text.startsWith('bash scripts/serve.sh'), 'the quick start');
 * readme.where(serve.lines[0]); // 'README.md:26: bash scripts/serve.sh'
 * ```
 */
export class Markdown {
  readonly lines: readonly NumberedLine[];

  constructor(
    readonly name: string,
    text: string,
  ) {
    this.lines = text.split('\n').map((line, index) => ({ number: index + 1, text: line }));
  }

  /** `<root>/<name>`, read. */
  static async read(root: string, name: string): Promise<Markdown> {
    return new Markdown(name, await readFile(join(root, name), 'utf8'));
  }

  /** `<file>:<number>: <text>`: a line as failure messages name it. */
  where(line: NumberedLine): string {
    return `${this.name}:${line.number}: ${line.text}`;
  }

  /** The lines of the section under `heading` (a line such as `## Quick start`), up to the next one. */
  section(heading: string): NumberedLine[] {
    const start = this.lines.findIndex((line) => line.text === heading);
    if (start === -1) throw new Error(`${this.name}: no heading ${heading}`);
    const level = heading.split(' ')[0] ?? '';
    const rest = this.lines.slice(start + 1);
    const end = rest.findIndex(
      (line) => /^#+ /.test(line.text) && (line.text.split(' ')[0] ?? '').length <= level.length,
    );
    return end === -1 ? rest : rest.slice(0, end);
  }

  /** The fenced blocks whose info string is `info`. */
  blocks(info: string): FencedBlock[] {
    const blocks: FencedBlock[] = [];
    let current: NumberedLine[] | undefined;
    for (const line of this.lines) {
      if (current === undefined && line.text === `\`\`\`${info}`) current = [];
      else if (current !== undefined && line.text === '```') {
        blocks.push({ info, lines: current });
        current = undefined;
      } else current?.push(line);
    }
    return blocks;
  }

  /** The one `info` block with a line `matches`; throws, saying `what` was looked for, otherwise. */
  block(info: string, matches: (text: string) => boolean, what: string): FencedBlock {
    const found = this.blocks(info).filter((block) => block.lines.some((line) => matches(line.text)));
    if (found.length !== 1) {
      throw new Error(`${this.name}: expected one \`\`\`${info} block with ${what}, found ${found.length}`);
    }
    return found[0] as FencedBlock;
  }

  /** The one line (anywhere, prose included) `matches`; throws, saying `what`, otherwise. */
  line(matches: (text: string) => boolean, what: string): NumberedLine {
    const found = this.lines.filter((line) => matches(line.text));
    if (found.length !== 1)
      throw new Error(`${this.name}: expected one line with ${what}, found ${found.length}`);
    return found[0] as NumberedLine;
  }
}

/** The lines of `shown` (blank ones aside) that are not found in `source` in the same order. */
export function linesNotInOrder(shown: readonly string[], source: string): string[] {
  const lines = source.split('\n');
  let at = 0;
  const missing: string[] = [];
  for (const line of shown) {
    if (line.trim() === '') continue;
    const found = lines.indexOf(line, at);
    if (found === -1) missing.push(line);
    else at = found + 1;
  }
  return missing;
}

/**
 * The promises of a block (its lines `<comment> → <text>`, see `promisedOutput`) with their line
 * numbers: what the commands above them print.
 */
export function numberedPromises(block: FencedBlock, comment: '#' | '//'): NumberedLine[] {
  const marker = `${comment} → `;
  return block.lines
    .filter((line) => line.text.trimStart().startsWith(marker))
    .map((line) => ({ number: line.number, text: line.text.trimStart().slice(marker.length) }));
}

/**
 * Where `printed` is not exactly `promised` (line for line): empty when every promise holds;
 * otherwise the first broken promise, named by its line of `file`, with what was printed instead.
 */
export function brokenLines(
  file: string,
  promised: readonly NumberedLine[],
  printed: readonly string[],
): string[] {
  for (let index = 0; index < Math.max(promised.length, printed.length); index++) {
    const promise = promised[index];
    const actual = printed[index];
    if (promise === undefined) return [`printed ${JSON.stringify(actual)} that no line of ${file} shows`];
    if (promise.text !== actual) {
      return [
        `${file}:${promise.number} says "→ ${promise.text}", but the command printed ${
          actual === undefined ? 'nothing more' : JSON.stringify(actual)
        }`,
      ];
    }
  }
  return [];
}

/**
 * The promises (see {@link numberedPromises}) that `printed` does not hold as whole lines in the
 * same order, each named by its line of `file`: empty when the output keeps every promise.
 */
export function missingLines(
  file: string,
  promised: readonly NumberedLine[],
  printed: readonly string[],
): string[] {
  let at = 0;
  const missing: string[] = [];
  for (const promise of promised) {
    const found = printed.indexOf(promise.text, at);
    if (found === -1)
      missing.push(`${file}:${promise.number} says "→ ${promise.text}", which was not printed`);
    else at = found + 1;
  }
  return missing;
}
