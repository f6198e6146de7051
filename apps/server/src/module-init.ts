import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HOST_VERSION } from '@cyrnel/core';

/** The SDK version this server was built with: the scaffold's type dependency. */
function sdkVersion(): string {
  const file = createRequire(import.meta.url).resolve('@cyrnel/sdk/package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** `cyrnel-server module --help`. */
export const MODULE_HELP = `Usage: cyrnel-server module init <dir> --type adapter|environment [--id <id>]

Write a module that loads as is: module.json, package.json ("type": "module"), index.js (an ES
module with JSDoc types from @cyrnel/sdk) and a README. Copy or link <dir> into
<data-dir>/modules/<id>, then POST /modules/reload (or restart the server).

  --type <type>   adapter (turns a definition into tools) or environment (runs code)
  --id <id>       the module id (default: the directory's name)
`;

const ADAPTER = `// @ts-check
/**
 * An adapter module: generateDefinition turns the definition text into tools, invoke performs
 * one call. This one reads a JSON array of tool names and answers each call with its parameters.
 *
 * @typedef {import('@cyrnel/sdk').AdapterModule} AdapterModule
 * @typedef {import('@cyrnel/sdk').ServiceState} ServiceState
 */

/** @returns {AdapterModule} */
function createAdapter() {
  /** @type {Map<string, ServiceState>} */
  const services = new Map();
  return {
    async setup() {},
    async teardown() {
      services.clear();
    },
    async generateDefinition(text) {
      const names = JSON.parse(text);
      if (!Array.isArray(names) || names.some((name) => typeof name !== 'string'))
        throw new Error('the definition must be a JSON array of tool names');
      return {
        name: '__NAME__',
        description: 'Echoes the parameters of each call',
        configSchema: { type: 'object', properties: {}, additionalProperties: false },
        secretsSchema: { type: 'object', properties: {}, additionalProperties: false },
        adapterDomain: {},
        tools: names.map((name) => ({
          id: name,
          name,
          description: \`Answers the parameters given to \${name}\`,
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          adapterDomain: {},
        })),
      };
    },
    async hydrateService(state) {
      services.set(state.id, state);
    },
    async dehydrateService(id) {
      services.delete(id);
    },
    async invoke({ serviceId, toolId, parameters, signal }) {
      const service = services.get(serviceId);
      if (!service || !(toolId in service.tools)) throw new Error(\`unknown tool \${serviceId}.\${toolId}\`);
      // A tool named "slow" answers only when the call is aborted: how a long call honours its signal.
      if (toolId === 'slow') {
        await new Promise((_, reject) => {
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }
      return { tool: toolId, parameters };
    },
  };
}

/** The module's export: its own config and secrets schemas, and a factory of instances. */
export default {
  configSchema: { type: 'object', properties: {}, additionalProperties: false },
  secretsSchema: { type: 'object', properties: {}, additionalProperties: false },
  instantiate: createAdapter,
};
`;

const ADAPTER_TEST = `// The adapter contract every cyrnel adapter is held to: npx vitest run.
import { runAdapterContract } from '@cyrnel/testing';
import { expect } from 'vitest';
import module from '../index.js';

runAdapterContract({
  name: '__ID__',
  create: () => module.instantiate(),
  fixture: () => ({
    definition: '["ping", "slow"]',
    invalidDefinition: '{"not": "an array"}',
    call: {
      toolId: 'ping',
      parameters: { hello: 'world' },
      check: (result) => expect(result).toEqual({ tool: 'ping', parameters: { hello: 'world' } }),
    },
    slowCall: { toolId: 'slow', parameters: {} },
  }),
});
`;

const ENVIRONMENT = `// @ts-check
/**
 * An environment module: execute runs one submitted program and reports through the bindings
 * (state, stdout, output, tool calls). This one does not run the code: it echoes it back. A real
 * environment isolates the code (see @cyrnel/env-typescript-ivm).
 *
 * @typedef {import('@cyrnel/sdk').EnvironmentModule} EnvironmentModule
 * @typedef {import('@cyrnel/sdk').EnvironmentBindings} EnvironmentBindings
 */

/** @returns {EnvironmentModule} */
function createEnvironment() {
  /** @type {EnvironmentBindings | undefined} */
  let bindings;
  return {
    async setup(context) {
      bindings = context.bindings;
    },
    async teardown() {
      bindings = undefined;
    },
    async execute({ eid, code }) {
      bindings?.setState(eid, 'running');
      bindings?.emitStdout(eid, code);
      bindings?.emitOutput(eid, { length: code.length });
      return 'success';
    },
    async kill() {},
    async generateDocs() {
      return '# __NAME__\\nPrints the submitted code back.';
    },
    async generateToolDocs({ serviceId, toolId, description }) {
      return \`# \${serviceId}.\${toolId}\\n\\n\${description}\`;
    },
  };
}

export default {
  configSchema: { type: 'object', properties: {}, additionalProperties: false },
  secretsSchema: { type: 'object', properties: {}, additionalProperties: false },
  instantiate: createEnvironment,
};
`;

function readme(id: string, type: 'adapter' | 'environment'): string {
  return `# ${id}

A cyrnel ${type} module, scaffolded by \`cyrnel-server module init\`.

- \`module.json\`: the manifest (id, type, version, \`main\`, \`engines.cyrnel\`).
- \`index.js\`: the code, an **ES module** (\`package.json\` says \`"type": "module"\`). Its
  JSDoc types come from \`@cyrnel/sdk\`: \`npm install\` and \`npm run check\` check them.${
    type === 'adapter'
      ? `
- \`test/contract.test.js\`: the adapter contract of \`@cyrnel/testing\`: \`npm test\`.`
      : ''
  }
- Runtime dependencies go in this folder's own \`node_modules\` (\`npm install <pkg>\` here).

Load it: copy or link this folder to \`<data-dir>/modules/${id}\`, then \`POST /modules/reload\`
(or restart the server). A module dropped in starts enabled; \`POST /modules/${id}/enabled\`
\`{"enabled": false}\` turns it off.${
    type === 'adapter'
      ? `

Try it: install a service with \`{"id": "demo", "adapter": "${id}", "definition": "[\\"ping\\"]", "enabled": true}\`
and run \`cyrnel.output(await cyrnel.services.demo.tools.ping.invoke({ hello: 'world' }))\`.`
      : ''
  }
`;
}

/** Run `cyrnel-server module ...`; answers the exit code. */
export async function runModuleCommand(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === undefined) {
    process.stdout.write(MODULE_HELP);
    return command === undefined ? 2 : 0;
  }
  if (command !== 'init') {
    process.stderr.write(`cyrnel-server module: unknown command "${command}"\n${MODULE_HELP}`);
    return 2;
  }
  let parsed: { values: { type?: string; id?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...rest],
      options: { type: { type: 'string' }, id: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`cyrnel-server module init: ${(error as Error).message}\n${MODULE_HELP}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(MODULE_HELP);
    return 0;
  }
  const [target, extra] = parsed.positionals;
  const type = parsed.values.type;
  if (target === undefined || extra !== undefined || (type !== 'adapter' && type !== 'environment')) {
    process.stderr.write(
      `cyrnel-server module init: give one <dir> and --type adapter|environment\n${MODULE_HELP}`,
    );
    return 2;
  }
  const dir = resolve(target);
  const id = parsed.values.id ?? basename(dir);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) {
    process.stderr.write(
      `cyrnel-server module init: "${id}" is not a module id (lowercase letters, digits and -; --id sets one)\n`,
    );
    return 2;
  }
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    process.stderr.write(`cyrnel-server module init: ${dir} is not empty\n`);
    return 1;
  }
  const name = id
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
  await mkdir(dir, { recursive: true });
  const files: Record<string, string> = {
    'module.json': `${JSON.stringify(
      {
        id,
        name,
        description: type === 'adapter' ? 'Echoes the parameters of each call' : 'Echoes the submitted code',
        type,
        version: '0.1.0',
        main: 'index.js',
        engines: { cyrnel: `^${HOST_VERSION}` },
      },
      null,
      2,
    )}\n`,
    'package.json': `${JSON.stringify(
      {
        name: `cyrnel-module-${id}`,
        version: '0.1.0',
        private: true,
        type: 'module',
        main: 'index.js',
        scripts: { test: 'vitest run', check: 'tsc --noEmit' },
        devDependencies: {
          '@cyrnel/sdk': `^${sdkVersion()}`,
          ...(type === 'adapter' ? { '@cyrnel/testing': `^${sdkVersion()}`, vitest: '^5.1.1' } : {}),
          typescript: '^5.9.3',
        },
      },
      null,
      2,
    )}\n`,
    'index.js': (type === 'adapter' ? ADAPTER : ENVIRONMENT).replaceAll('__NAME__', name),
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: {
          allowJs: true,
          checkJs: true,
          noEmit: true,
          strict: true,
          module: 'nodenext',
          target: 'es2022',
          skipLibCheck: true,
        },
        files: ['index.js'],
      },
      null,
      2,
    )}\n`,
    'README.md': readme(id, type),
  };
  if (type === 'adapter') {
    await mkdir(join(dir, 'test'));
    files['test/contract.test.js'] = ADAPTER_TEST.replaceAll('__ID__', id);
  }
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  process.stdout.write(
    `Wrote the ${type} module ${id} in ${dir}. Copy or link it to <data-dir>/modules/${id} and POST /modules/reload.\n`,
  );
  return 0;
}
