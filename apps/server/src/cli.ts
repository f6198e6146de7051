#!/usr/bin/env node
import './require-node';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ForwardedSignal, ForwardedSignalName } from './forwarded-signal';

// isolated-vm crashes on Node's startup snapshot, so the server must run with
// --no-node-snapshot. When launched without it, run main.js in a child that has it, with
// stdio inherited, signals forwarded and the exit code passed through. The IPC channel
// carries the forwarded signals and, when this launcher dies (even by SIGKILL), closes:
// the server sees `disconnect` and shuts down instead of lingering on its port.
const FLAG = '--no-node-snapshot';
const mainUrl = new URL('./main.js', import.meta.url);

if (process.execArgv.includes(FLAG)) {
  await import(mainUrl.href);
} else {
  const child = spawn(
    process.execPath,
    [...process.execArgv, FLAG, fileURLToPath(mainUrl), ...process.argv.slice(2)],
    { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] },
  );
  const forward = (signal: ForwardedSignalName) => () => {
    const message: ForwardedSignal = { type: 'cyrnel:signal', signal };
    if (!child.connected) {
      child.kill(signal);
      return;
    }
    child.send(message, (error) => {
      if (error) child.kill(signal);
    });
  };
  process.on('SIGINT', forward('SIGINT'));
  process.on('SIGTERM', forward('SIGTERM'));
  child.on('error', (error) => {
    process.stderr.write(`cyrnel-server: could not start ${process.execPath}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (code !== null) process.exit(code);
    process.removeAllListeners(signal ?? 'SIGTERM');
    process.kill(process.pid, signal ?? 'SIGTERM');
  });
}
