import type { ModuleLogger } from '@cyrnel/sdk';
import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';
import { errorMessage } from '../scoped-logger';

/**
 * Run `tick` every `intervalMs` (never when absent or 0), one run at a time: a tick that outlasts
 * the interval delays the next instead of overlapping it. The timer does not keep the process up.
 */
export function startAutoUpdate(
  intervalMs: number | undefined,
  logger: ModuleLogger,
  tick: () => Promise<void>,
): { stop(): void } {
  if (!intervalMs || intervalMs <= 0) return { stop() {} };
  const delay = Math.min(intervalMs, MAX_TIMER_DELAY_MS);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      try {
        await tick();
      } catch (error) {
        logger.error('auto-update failed', { error: errorMessage(error) });
      }
      schedule();
    }, delay);
    timer.unref();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
