import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { descendants, procCpuMs, procMemory, treeMemory } from './proc-memory.ts';

describe('proc-memory', () => {
  it('reads RSS and peak RSS of this process', () => {
    const m = procMemory(process.pid);
    expect(m?.rssMb).toBeGreaterThan(1);
    expect(m?.hwmMb).toBeGreaterThanOrEqual(m?.rssMb ?? 0);
    expect(procCpuMs(process.pid)).toBeGreaterThanOrEqual(0);
  });

  it('finds a child process and sums its memory into the tree', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      expect(descendants(process.pid)).toContain(child.pid);
      const tree = treeMemory(process.pid);
      expect(tree.children).toBeGreaterThanOrEqual(1);
      expect(tree.totalMb).toBeGreaterThan(tree.mainMb);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('answers undefined for a process that does not exist', () => {
    expect(procMemory(2 ** 22 + 17)).toBeUndefined();
  });
});
