import type { ProcessEvent } from '@cyrnel/sdk/api';

/** Drops what a reconnection replays of events already yielded. */
export interface ReplayFilter {
  /** A new connection starts: its events replay the run from the beginning. */
  reconnect(): void;
  /** The event to yield for `event`, or undefined when it was already yielded. */
  accept(event: ProcessEvent): ProcessEvent | undefined;
}

/**
 * The server replays every event from the start on each connection, but not always in the
 * shape it first sent them: consecutive stdout/stderr chunks replay as one, and a finished
 * process replays as its final state, whole stdout, stderr and merged output. Counting events
 * would skip or repeat; instead text streams are tracked by how many characters were yielded
 * (only the unseen tail is yielded), and states and output patches as ordered sequences a
 * replay is matched against (a coalesced output patch that matches nothing is yielded again;
 * merging it shallowly gives the same result).
 */
export function createReplayFilter(): ReplayFilter {
  const yielded = { stdout: 0, stderr: 0 };
  const replayed = { stdout: 0, stderr: 0 };
  const sequences = { state: [] as string[], output: [] as string[] };
  const cursors = { state: 0, output: 0 };

  const matchSequence = (kind: 'state' | 'output', key: string): boolean => {
    const sequence = sequences[kind];
    const found = sequence.indexOf(key, cursors[kind]);
    if (found !== -1) {
      cursors[kind] = found + 1;
      return true;
    }
    sequence.push(key);
    cursors[kind] = sequence.length;
    return false;
  };

  return {
    reconnect() {
      replayed.stdout = 0;
      replayed.stderr = 0;
      cursors.state = 0;
      cursors.output = 0;
    },
    accept(event) {
      switch (event.type) {
        case 'stdout':
        case 'stderr': {
          const start = replayed[event.type];
          replayed[event.type] += event.data.text.length;
          const unseen = event.data.text.slice(Math.max(0, yielded[event.type] - start));
          if (unseen === '') return undefined;
          yielded[event.type] += unseen.length;
          return unseen === event.data.text ? event : { type: event.type, data: { text: unseen } };
        }
        case 'state':
          return matchSequence('state', JSON.stringify(event.data)) ? undefined : event;
        case 'output':
          return matchSequence('output', JSON.stringify(event.data)) ? undefined : event;
        case 'exit':
          return event;
      }
    },
  };
}
