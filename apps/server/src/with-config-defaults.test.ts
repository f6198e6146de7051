import typescriptIvm from '@cyrnel/env-typescript-ivm';
import { describe, expect, it } from 'vitest';
import { withConfigDefaults } from './with-config-defaults';

describe('withConfigDefaults', () => {
  it('replaces the defaults of declared config properties and keeps the rest of the module', () => {
    const wrapped = withConfigDefaults(typescriptIvm, { stdoutCapBytes: 16, outputCapBytes: 64 });
    const properties = wrapped.configSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.stdoutCapBytes).toMatchObject({ type: 'integer', minimum: 0, default: 16 });
    expect(properties.outputCapBytes).toMatchObject({ default: 64 });
    expect(properties.stderrCapBytes).toMatchObject({ default: 1_048_576 });
    expect(wrapped.manifest).toBe(typescriptIvm.manifest);
    expect(wrapped.secretsSchema).toBe(typescriptIvm.secretsSchema);
    const original = typescriptIvm.configSchema.properties as Record<string, Record<string, unknown>>;
    expect(original.stdoutCapBytes?.default).toBe(1_048_576);
  });

  it('refuses properties the schema does not declare', () => {
    expect(() => withConfigDefaults(typescriptIvm, { nope: 1 })).toThrow(
      /module typescript-ivm has no config property "nope"/,
    );
  });
});
