import { isModuleDefinition, validateModuleManifest } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import defaultExport, { configSchema, instantiate, manifest, secretsSchema } from '../src';
import { resolveConfig } from '../src/host/config';

describe('typescript-ivm module', () => {
  it('exports a built-in module whose default export is the same object', () => {
    expect(defaultExport.manifest).toBe(manifest);
    expect(defaultExport.configSchema).toBe(configSchema);
    expect(defaultExport.secretsSchema).toBe(secretsSchema);
    expect(defaultExport.instantiate).toBe(instantiate);
    expect(isModuleDefinition(defaultExport)).toBe(true);
    expect(manifest).toMatchObject({ id: 'typescript-ivm', type: 'environment' });
    expect(validateModuleManifest({ ...manifest, main: 'index.js' })).toEqual([]);
  });

  it('applies config defaults and ignores invalid values', () => {
    expect(resolveConfig({ poolSize: 3, memoryLimitMb: 'x', stdoutCapBytes: -1 })).toMatchObject({
      poolSize: 3,
      idleTimeoutMs: 300_000,
      memoryLimitMb: 128,
      stdoutCapBytes: 1_048_576,
      stderrCapBytes: 1_048_576,
      outputCapBytes: 4_194_304,
      defaultTimeoutMs: 30_000,
    });
    expect(resolveConfig().poolSize).toBeGreaterThanOrEqual(1);
    expect(resolveConfig({ idleTimeoutMs: 0 }).idleTimeoutMs).toBe(0);
    expect(resolveConfig({ idleTimeoutMs: -1 }).idleTimeoutMs).toBe(300_000);
  });

  it('documents the runtime, its limits and the error-handling pattern', async () => {
    const env = instantiate();
    const docs = await env.generateDocs();
    for (const needle of [
      'cyrnel.output',
      'cyrnel.services',
      'cyrnel.discover.tools',
      'console.warn',
      'setTimeout',
      '128 MB',
      'err.status',
      'try {',
    ]) {
      expect(docs).toContain(needle);
    }
    expect(docs.length).toBeLessThan(4000);
  });

  it('refuses to execute before setup', async () => {
    await expect(
      instantiate().execute({ eid: 1, code: '', options: { timeoutMs: 10 }, envConfig: {} }),
    ).rejects.toThrow(/before setup/);
  });
});
