import ivm from 'isolated-vm';
import { describe, expect, it } from 'vitest';
import { createCpuMeter } from './cpu-meter';

describe('createCpuMeter', () => {
  it("measures an isolate's CPU time from its creation to the last sample read before a dispose", () => {
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    const cpu = createCpuMeter(isolate);
    expect(cpu.elapsedMs()).toBeUndefined();
    isolate
      .compileScriptSync('let x = 0; for (let i = 0; i < 1e6; i++) x += i;')
      .runSync(isolate.createContextSync());
    cpu.sample();
    const spent = cpu.elapsedMs() ?? -1;
    expect(spent).toBeGreaterThan(0);
    isolate.dispose();
    // Disposed: the last sample stands.
    cpu.sample();
    expect(cpu.elapsedMs()).toBe(spent);
  });

  it('knows nothing of an isolate disposed before any sample (its memory limit): no made-up zero', () => {
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    const cpu = createCpuMeter(isolate);
    isolate.dispose();
    cpu.sample();
    expect(cpu.elapsedMs()).toBeUndefined();
  });
});
