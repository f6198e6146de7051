import type { MachineInfo } from './machine-info.ts';
import type { Report, Row } from './report.ts';

const HEADER = ['metric', 'p50', 'p90', 'p99', 'floor / peer', 'ratio', 'target', 'met?'] as const;

/** A number with about three significant digits, or an empty cell. */
export function num(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '';
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

function withUnit(value: number | undefined, unit: string): string {
  const text = num(value);
  return text === '' ? '' : `${text} ${unit}`;
}

function cells(row: Row): string[] {
  const p50 = row.stats ? row.stats.p50 : row.value;
  const met = row.met === undefined ? '' : row.met === null ? 'n/a' : row.met ? 'yes' : 'NO';
  return [
    row.metric,
    withUnit(p50, row.unit),
    row.stats ? withUnit(row.stats.p90, row.unit) : '',
    row.stats ? withUnit(row.stats.p99, row.unit) : '',
    row.baseline ? `${row.baseline.label} ${withUnit(row.baseline.value, row.unit)}` : '',
    row.ratio === undefined ? '' : `${num(row.ratio)}×`,
    row.target ?? '',
    met,
  ];
}

/** The rows as an aligned plain-text table for the terminal. */
export function textTable(rows: readonly Row[]): string {
  const body = rows.map(cells);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function mdEscape(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** The rows as a Markdown table. */
export function markdownTable(rows: readonly Row[]): string {
  const out = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map(() => '---').join('|')}|`];
  for (const row of rows) out.push(`| ${cells(row).map(mdEscape).join(' | ')} |`);
  return out.join('\n');
}

/** The machine's speed at the start, to compare runs with each other (not rows with floors). */
export function speedLine(machine: MachineInfo): string {
  return `Speed at start: a fixed loop of 50 million steps ${machine.speed.loopMs} ms; the first touch of a fresh 4 KiB page ${machine.speed.pageTouchUs} µs (an ordinary Linux machine: under 1 µs)`;
}

/** The whole results page: machine, table, per-row notes, notes and skipped parts. */
export function markdownReport(report: Report, machine: MachineInfo, mode: string): string {
  const parts = [
    '# cyrnel benchmark results',
    '',
    `Mode: **${mode}** · ${machine.date}`,
    '',
    `Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}, Node ${machine.node}; load average ${machine.loadAverage} at start (other work on the machine skews every number)`,
    '',
    speedLine(machine),
    '',
    markdownTable(report.rows),
    '',
  ];
  const targeted = report.rows.filter((r) => r.target !== undefined);
  if (targeted.length) {
    parts.push('## Targets', '');
    for (const row of targeted) {
      const cell = cells(row);
      const reached =
        row.ratio !== undefined && row.target?.includes('×') ? `${cell[5]} (${cell[1]})` : cell[1];
      const verdict = row.met === null ? 'not judged' : row.met ? 'met' : 'missed';
      parts.push(`- ${row.target} — ${row.metric}: ${reached || 'no value'} → **${verdict}**`);
    }
    parts.push('', 'What stands in the way of the missed ones: see "Findings" in bench/README.md.', '');
  }
  const rowNotes = report.rows.filter((r) => r.note);
  if (rowNotes.length) {
    parts.push('## Row notes', '');
    for (const row of rowNotes) parts.push(`- **${row.metric}**: ${row.note}`);
    parts.push('');
  }
  if (report.notes.length) {
    parts.push('## Notes', '');
    for (const note of report.notes) parts.push(`- ${note}`);
    parts.push('');
  }
  if (report.skips.length) {
    parts.push('## Parts that could not run', '');
    for (const skip of report.skips) parts.push(`- **${skip.section}**: ${skip.reason}`);
    parts.push('');
  }
  if (report.unfinished.length) {
    parts.push('## Parts the time budget cut short', '');
    for (const cut of report.unfinished) parts.push(`- **${cut.section}**: ${cut.reason}`);
    parts.push('');
  }
  return parts.join('\n');
}
