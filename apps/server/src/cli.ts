#!/usr/bin/env node
import './require-node';

// The `cyrnel-server` bin: the server runs in this process, on Node's startup snapshot.
// isolated-vm, which needs `--no-node-snapshot`, is loaded only in the sandbox children, and the
// pool starts them with the flag; so there is no second process to launch, to forward signals to
// or to leave behind. SIGINT/SIGTERM reach the server itself (`server-main.ts`).
await import(new URL('./main.js', import.meta.url).href);
