import { runEnvironmentContract } from '@cyrnel/testing';
import { createScriptEnvironment } from './script-environment';

// The kit proven on the host's test environment (typescript-ivm runs it in its own package).
runEnvironmentContract({
  name: 'script (test scaffolding)',
  create: () => createScriptEnvironment({ poolSize: 4 }),
  programs: {
    outputs: "cyrnel.log('hello'); cyrnel.output({ answer: 42 });",
    throws: "throw new Error('boom');",
    callsTool: "cyrnel.output({ sum: await cyrnel.invoke('math', 'add', { a: 2, b: 3 }) });",
    waits: 'await cyrnel.sleep(60_000);',
  },
});
