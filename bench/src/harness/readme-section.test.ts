import { describe, expect, it } from 'vitest';
import { README_END, README_START, readmeExcerpt, replaceReadmeSection } from './readme-section.ts';

const REPORT = `# cyrnel benchmark results

Mode: **full (120 s)** · 2026-11-23T11:42:56.277Z

Machine: Test CPU, 2 cores

| metric | p50 | target | met? |
|---|---|---|---|
| cyrnel: trivial process | 2.00 ms | ≤ 1.5× | NO |

## Targets

- ≤ 1.5× — cyrnel: trivial process: 2.0× → **missed**

What stands in the way: see bench/README.md.

## Row notes

- **cyrnel: trivial process**: a note
`;

describe('the README section of a full run', () => {
  it('keeps the run, the machine, the table and the targets, not the notes', () => {
    expect(readmeExcerpt(REPORT)).toBe(
      [
        'Run: **full (120 s)** · 2026-11-23T11:42:56.277Z',
        '',
        'Machine: Test CPU, 2 cores',
        '',
        '| metric | p50 | target | met? |',
        '|---|---|---|---|',
        '| cyrnel: trivial process | 2.00 ms | ≤ 1.5× | NO |',
        '',
        'Targets:',
        '',
        '- ≤ 1.5× — cyrnel: trivial process: 2.0× → **missed**',
      ].join('\n'),
    );
  });

  it('replaces only the text between the markers, again and again', () => {
    const readme = `# Title\n\nBefore.\n\n${README_START}\nold table\n${README_END}\n\nAfter.\n`;
    const once = replaceReadmeSection(readme, REPORT);
    expect(once).toBe(
      `# Title\n\nBefore.\n\n${README_START}\n${readmeExcerpt(REPORT)}\n${README_END}\n\nAfter.\n`,
    );
    expect(replaceReadmeSection(once, REPORT)).toBe(once);
  });

  it('refuses a README without markers and a report without a table', () => {
    expect(() => replaceReadmeSection('# Title\n', REPORT)).toThrow(/markers/);
    expect(() => readmeExcerpt('# nothing here\n')).toThrow(/no table/);
  });
});
