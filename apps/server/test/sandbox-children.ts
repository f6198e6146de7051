import { readdirSync, readFileSync } from 'node:fs';

/** The sandbox processes the in-process server forked (children of this test process). */
export function sandboxChildren(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return (
          ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('sandbox-child')
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}
