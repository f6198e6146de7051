/** Marks the part of the root README that a full run rewrites. */
export const README_START = '<!-- bench:latest:start (written by pnpm bench from results/latest.md) -->';
export const README_END = '<!-- bench:latest:end -->';

/**
 * The README excerpt of a `latest.md` report: its run and machine lines, the table, and the
 * targets list (everything but the row notes and the skipped parts).
 */
export function readmeExcerpt(latestMd: string): string {
  const lines = latestMd.split('\n');
  const keep = lines.filter((line) => line.startsWith('Mode:') || line.startsWith('Machine:'));
  const tableAt = lines.findIndex((line) => line.startsWith('| metric |'));
  if (tableAt < 0) throw new Error('the report has no table');
  const table: string[] = [];
  for (const line of lines.slice(tableAt)) {
    if (!line.startsWith('|')) break;
    table.push(line);
  }
  const targetsAt = lines.findIndex((line) => line.startsWith('## Targets'));
  const targets: string[] = [];
  if (targetsAt >= 0) {
    for (const line of lines.slice(targetsAt + 2)) {
      if (!line.startsWith('- ')) break;
      targets.push(line);
    }
  }
  return [
    ...keep.flatMap((line) => [line.replace(/^Mode:/, 'Run:'), '']),
    ...table,
    ...(targets.length ? ['', 'Targets:', '', ...targets] : []),
  ].join('\n');
}

/** `readme` with the text between the markers replaced by the excerpt of `latestMd`. */
export function replaceReadmeSection(readme: string, latestMd: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) throw new Error('the README has no bench:latest markers');
  return `${readme.slice(0, start + README_START.length)}\n${readmeExcerpt(latestMd)}\n${readme.slice(end)}`;
}
