/**
 * Entry of a sandbox child process (forked by the pool). It owns the isolate, so a V8 abort
 * (Map/Set/dictionary growth ignores isolated-vm's memoryLimit) kills only this process.
 */
import type { ChildSettings } from './sandbox-protocol';
import { serveSandbox } from './sandbox-server';

serveSandbox(JSON.parse(process.argv[2] ?? '{}') as ChildSettings);
