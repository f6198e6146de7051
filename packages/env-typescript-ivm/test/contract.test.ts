import { runEnvironmentContract } from '@cyrnel/testing';
import { createTypescriptEnvironment } from '../src';

// The environment kit on the real sandbox: isolated-vm in its child processes.
runEnvironmentContract({
  name: 'typescript-ivm',
  create: () => createTypescriptEnvironment(),
  programs: {
    outputs: "console.log('hello'); cyrnel.output({ answer: 42 });",
    throws: "throw new Error('boom');",
    callsTool: 'cyrnel.output({ sum: await cyrnel.services.math.tools.add.invoke({ a: 2, b: 3 }) });',
    waits: 'await new Promise((resolve) => setTimeout(resolve, 60_000));',
    loops: 'while (true) {}',
  },
});
