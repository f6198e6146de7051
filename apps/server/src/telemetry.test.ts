import { describe, expect, it } from 'vitest';
import { createSilentLogger } from './create-logger';
import { startTracing, type TracingSdkLoader } from './telemetry';
import { samplerOf } from './telemetry-sdk';

const base = { argumentShapes: false, hostId: 'h1', version: '0.0.0', logger: createSilentLogger() };
// A collector nobody listens on: spans are only batched here, never sent.
const endpoint = 'http://127.0.0.1:9/otlp';

describe('startTracing', () => {
  it('is off without a collector, and then never loads the SDK', async () => {
    let loads = 0;
    const load: TracingSdkLoader = async () => {
      loads++;
      throw new Error('not to be loaded');
    };
    expect(await startTracing({ ...base, endpoint: undefined, env: {} }, load)).toBeUndefined();
    expect(loads).toBe(0);
  });

  it('loads the SDK on the first server with tracing, shares it with the next, and stops it with the last', async () => {
    const first = await startTracing({ ...base, endpoint, env: {} });
    const second = await startTracing({ ...base, endpoint, env: {} });
    expect(first?.url).toBe('http://127.0.0.1:9/otlp/v1/traces');
    expect(typeof first?.options.exportRelayed).toBe('function');
    // The relay hands finished worker spans to the batch exporter; an empty batch is a no-op.
    first?.options.exportRelayed?.([]);
    await first?.close();
    await second?.close();
    // Stopped with the last: the next server loads and installs it again.
    const third = await startTracing({ ...base, endpoint, env: {} });
    expect(third?.url).toBe(first?.url);
    await third?.close();
  });

  it('rejects with an error naming the SDK when it cannot be loaded, and tries again on the next start', async () => {
    let loads = 0;
    const broken: TracingSdkLoader = async () => {
      loads++;
      // A module that is not there, as in a broken install.
      return (await import(`./no-such-telemetry-sdk-${loads}.js`)).installTracingSdk();
    };
    const failure = await startTracing({ ...base, endpoint, env: {} }, broken).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(
      /^tracing is on but the OpenTelemetry SDK could not be loaded: .*no-such-telemetry-sdk-1/,
    );
    expect((failure as Error).cause).toBeInstanceOf(Error);
    // Not remembered as installed: the real SDK loads on the next start.
    const tracing = await startTracing({ ...base, endpoint, env: {} });
    expect(tracing?.url).toBe('http://127.0.0.1:9/otlp/v1/traces');
    await tracing?.close();
    expect(loads).toBe(1);
  });
});

describe('samplerOf', () => {
  it('builds the SDK sampler the settings describe', () => {
    expect(samplerOf({ root: 'always_on', parentBased: true }).toString()).toContain('ParentBased');
    expect(samplerOf({ root: 'always_off', parentBased: false }).toString()).toBe('AlwaysOffSampler');
    expect(samplerOf({ root: 'ratio', ratio: 0.25, parentBased: false }).toString()).toContain('0.25');
  });
});
