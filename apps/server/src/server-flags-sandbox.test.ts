import { describe, expect, it } from 'vitest';
import { parseServerConfig } from './server-config';

const run = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const parsed = parseServerConfig(argv, env);
  if (parsed.action !== 'run') throw new Error('expected a run');
  return parsed.config;
};

describe('the sandbox pool flags', () => {
  it('reads --warm-sandboxes (unset: the pool size; 0 to 256)', () => {
    expect(run([]).warmSandboxes).toBeUndefined();
    expect(run(['--warm-sandboxes', '0']).warmSandboxes).toBe(0);
    expect(run([], { CYRNEL_WARM_SANDBOXES: '3' }).warmSandboxes).toBe(3);
    expect(() => run(['--warm-sandboxes', '257'])).toThrow(/--warm-sandboxes: must be between 0 and 256/);
    expect(() => run(['--warm-sandboxes', '-1'])).toThrow(/--warm-sandboxes/);
  });
});
