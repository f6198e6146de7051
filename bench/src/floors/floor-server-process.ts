import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Resources } from '../harness/resources.ts';

/** The floor (a)+(b) service running in its own process. */
export interface FloorServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Spawns `floor-server.ts` and waits for its `listening <url>` line. */
export async function startFloorServer(resources: Resources): Promise<FloorServer> {
  const script = fileURLToPath(new URL('./floor-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--no-node-snapshot', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  const pid = child.pid as number;
  resources.onExit(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
  const stop = resources.defer(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await gone;
    clearTimeout(timer);
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString('utf8')).slice(-2_000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`the floor server did not start in 15 s: ${errors}`)),
      15_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the floor server exited (${code}): ${errors}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, stop };
}
