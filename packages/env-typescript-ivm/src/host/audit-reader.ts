import type { EventEmitter } from 'node:events';
import type { AuditLine } from '../shared/sandbox-protocol';

/**
 * Read a child's audit pipe (its direct tool calls): whole lines are parsed as they come, in
 * order; a line that is not an audit line is skipped.
 */
export function readAuditLines(pipe: EventEmitter, onLine: (line: AuditLine) => void): void {
  let tail = '';
  const parse = (text: string) => {
    let line: AuditLine;
    try {
      line = JSON.parse(text) as AuditLine;
    } catch {
      return;
    }
    if (typeof line?.eid === 'number') onLine(line);
  };
  pipe.on('data', (chunk: Buffer) => {
    const text = tail + chunk.toString('utf8');
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      parse(text.slice(start, end));
      start = end + 1;
    }
    tail = text.slice(start);
  });
}
