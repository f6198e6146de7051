import type { CyrnelHost, ToolGateway } from '../../src/index';

async function call(host: CyrnelHost, method: string, args: unknown[]): Promise<never> {
  const process = await host.processes.create({ code: `call:${JSON.stringify({ method, args })}` });
  const { output } = await host.processes.wait(process.id);
  if (output.error) {
    const error = output.error as { message: string };
    throw Object.assign(new Error(error.message), error);
  }
  return output.result as never;
}

/**
 * The host's tool gateway as the sandbox sees it: every call runs as a process on the test
 * environment, which calls the real bindings (so the gate is tested end to end).
 */
export function gatewayOf(host: CyrnelHost): { tools: ToolGateway } {
  return {
    tools: {
      invoke: (input) => call(host, 'invokeTool', [input]),
      discoverServices: (query) => call(host, 'discoverServices', [query]),
      discoverTools: (query) => call(host, 'discoverTools', [query]),
      describeTool: (serviceId, toolId) => call(host, 'describeTool', [serviceId, toolId]),
    },
  };
}
