import { describe, expect, it } from 'vitest';
import { createLogger } from './create-logger';

describe('createLogger', () => {
  it('writes one JSON object per line with time, level, message and fields', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', write: (line) => lines.push(line) }).child({
      component: 'x',
    });
    logger.debug('hidden');
    logger.info('hello', { n: 1 });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: 'info',
      msg: 'hello',
      component: 'x',
      n: 1,
    });
  });

  it('writes readable lines in pretty mode and nothing when silent', () => {
    const lines: string[] = [];
    createLogger({ level: 'debug', pretty: true, write: (line) => lines.push(line) }).warn('careful', {
      path: '/a',
    });
    expect(lines[0]).toMatch(/WARN {2}careful path=\/a\n$/);
    const silent: string[] = [];
    createLogger({ level: 'silent', write: (line) => silent.push(line) }).error('x');
    expect(silent).toEqual([]);
  });

  it('writes announcements at every level, even silent, as info lines', () => {
    for (const level of ['warn', 'error', 'silent'] as const) {
      const lines: string[] = [];
      const logger = createLogger({ level, write: (line) => lines.push(line) }).child({ component: 'x' });
      logger.info('dropped');
      logger.announce('listening', { url: 'http://127.0.0.1:1' });
      expect(lines.map((line) => JSON.parse(line))).toEqual([
        expect.objectContaining({
          level: 'info',
          msg: 'listening',
          url: 'http://127.0.0.1:1',
          component: 'x',
        }),
      ]);
    }
  });
});
