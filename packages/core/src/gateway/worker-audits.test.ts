import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { journalFiles, readCallJournal } from './call-journal';
import type { AuditEvent, FromWorker } from './gateway-protocol';
import { createWorkerAudits, keptCallTrace } from './worker-audits';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const start = (id: number): AuditEvent & { kind: 'start' } => ({
  kind: 'start',
  id,
  serviceId: 'shop',
  toolId: 'get',
  startedAt: 1_700_000_000_000 + id,
});

describe('a gateway worker’s audits', () => {
  it('keeps nothing without a journal, journals kept starts in order, and removes a closed file once all in it is stored', () => {
    const posted: FromWorker[] = [];
    const none = createWorkerAudits({ post: (message) => posted.push(message) });
    none.keep(1, 'shop', 'get', {});
    expect(none.kept(1, 'shop', 'get')).toBeUndefined();
    expect(none.journal(1, start(0))).toBe(false);
    none.close();

    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-worker-audits-'));
    dirs.push(dir);
    const file = join(dir, 'w0-1.jsonl');
    const audits = createWorkerAudits({ file, post: (message) => posted.push(message) });
    audits.keep(1, 'shop', 'get', {});
    expect(audits.kept(1, 'shop', 'get')).toEqual({});
    expect(audits.kept(1, 'shop', 'put')).toBeUndefined();
    expect(audits.kept(2, 'shop', 'get')).toBeUndefined();
    // Past 256 KiB a file is closed and the next one opened: no line is lost between them.
    const count = 5_000;
    for (let id = 1; id <= count; id++) expect(audits.journal(1, start(id))).toBe(true);
    audits.flush();
    const events = posted.flatMap((message) => (message.t === 'audits' ? message.events : []));
    expect(events).toHaveLength(count);
    expect(events[0]?.event).toMatchObject({ kind: 'start', id: 1, kept: 1 });
    const files = journalFiles(file).sort();
    expect(files).toEqual([file, `${file}.1`]);
    const lines = files.flatMap((path) => readCallJournal(path));
    expect(lines.map((line) => line.q).sort((a, b) => a - b)).toEqual(
      Array.from({ length: count }, (_, i) => i + 1),
    );
    const firstLast = Math.max(...readCallJournal(file).map((line) => line.q));
    // A batch asks to hear when its lines are stored while a closed file waits.
    const asked = posted.flatMap((message) =>
      message.t === 'audits' && message.q !== undefined ? [message.q] : [],
    );
    expect(asked.at(-1)).toBe(count);
    // Stored up to a line before the closed file's last: it stays; up to its last: it goes.
    audits.stored(firstLast - 1);
    expect(existsSync(file)).toBe(true);
    audits.stored(firstLast);
    expect(existsSync(file)).toBe(false);
    expect(journalFiles(file)).toEqual([`${file}.1`]);
    // A change or the execution's end drops what was kept.
    audits.changed();
    expect(audits.kept(1, 'shop', 'get')).toBeUndefined();
    audits.keep(1, 'shop', 'get', {});
    audits.revoke(1);
    expect(audits.kept(1, 'shop', 'get')).toBeUndefined();
    audits.close();
  });

  it('gives a kept call of a traced run a span id of its own in the same trace', () => {
    const trace = {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'v=1',
    };
    const a = keptCallTrace(trace);
    const b = keptCallTrace(trace);
    if (!a || !b) throw new Error('a valid trace gives a kept call trace');
    expect(a.spanId).toMatch(/^(?!0{16})[0-9a-f]{16}$/);
    expect(a.spanId).not.toBe(b.spanId);
    expect(a.carrier).toEqual({
      traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${a.spanId}-01`,
      tracestate: 'v=1',
    });
    // A carrier naming no valid span gives none.
    expect(
      keptCallTrace({ traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }),
    ).toBeUndefined();
  });
});
