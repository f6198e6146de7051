import { readFile } from 'node:fs/promises';
import { ERROR_REASONS, ERROR_STATUS } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';

describe('the README table of error reasons', () => {
  it('lists every reason of ERROR_REASONS once, with its code, status and meaning', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Error reasons'));
    const rows = section
      .split('\n')
      .filter((line) => /^\| `[a-z_]+` \|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const expected = Object.entries(ERROR_REASONS).map(([reason, { code, meaning }]) => [
      '',
      `\`${reason}\``,
      `\`${code}\``,
      String(ERROR_STATUS[code]),
      meaning,
      '',
    ]);
    expect(rows).toEqual(expected);
  });
});
