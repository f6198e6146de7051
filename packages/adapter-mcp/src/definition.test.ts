import { describe, expect, it } from 'vitest';
import { configSchemaOf, parseDefinition, placeholdersOf, resolveSpec, secretsSchemaOf } from './definition';

const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return `${(error as { reason?: string }).reason}: ${(error as Error).message}`;
  }
  return 'no error';
};

describe('parseDefinition', () => {
  it('reads JSON and YAML of both transports', () => {
    expect(parseDefinition('{"transport":"http","url":"https://mcp.example.com/mcp"}')).toEqual({
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: {},
    });
    expect(
      parseDefinition('transport: stdio\ncommand: npx\nargs: [-y, "@modelcontextprotocol/server-memory"]\n'),
    ).toEqual({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: {},
    });
  });

  it('refuses, naming the problem: unknown transport or field, bad URL, credentials in the URL, reserved headers', () => {
    expect(reason(() => parseDefinition('{"transport":"ftp"}'))).toMatch(
      /^invalid_definition: transport must be/,
    );
    expect(reason(() => parseDefinition('{"transport":"stdio","command":"x","shell":true}'))).toMatch(
      /unknown field "shell"/,
    );
    expect(reason(() => parseDefinition('{"transport":"http","url":"file:///etc/passwd"}'))).toMatch(
      /http\(s\) URL/,
    );
    expect(reason(() => parseDefinition('{"transport":"http","url":"https://u:p@h/mcp"}'))).toMatch(
      /credentials/,
    );
    expect(
      reason(() => parseDefinition('{"transport":"http","url":"https://h/mcp","headers":{"Host":"x"}}')),
    ).toMatch(/header "Host" is set by cyrnel/);
    expect(
      reason(() => parseDefinition('{"transport":"http","url":"https://h/mcp","headers":{"a b":"x"}}')),
    ).toMatch(/not a valid header name/);
    expect(reason(() => parseDefinition('{"transport":"stdio","command":"${secrets.x}"}'))).toMatch(
      /allow-list/,
    );
    expect(
      reason(() => parseDefinition('{"transport":"stdio","command":"x","args":["${env.HOME}"]}')),
    ).toMatch(/placeholders are/);
    expect(reason(() => parseDefinition('[1, 2]'))).toMatch(/must be an object/);
    expect(reason(() => parseDefinition('a: &x [1]\nb: *x\n'))).toMatch(/^invalid_definition/);
  });
});

describe('placeholders', () => {
  const spec = parseDefinition(
    JSON.stringify({
      transport: 'stdio',
      command: 'npx',
      args: ['--workspace', '${config.workspace}'],
      env: { API_TOKEN: '${secrets.token}', REGION: '${config.region}-1' },
    }),
  );

  it('become the config and secrets schemas, each name once and required', () => {
    const names = placeholdersOf(spec);
    expect(names).toEqual({ secrets: ['token'], config: ['workspace', 'region'] });
    expect(secretsSchemaOf(names)).toMatchObject({ required: ['token'], additionalProperties: false });
    expect(configSchemaOf(names)).toMatchObject({
      required: ['workspace', 'region'],
      properties: { timeoutMs: { default: 60_000 } },
    });
  });

  it('are filled from config and secrets; a missing one is named; a line break never reaches a header', () => {
    expect(
      resolveSpec(spec, { config: { workspace: 'w', region: 'eu' }, secrets: { token: 't' } }),
    ).toMatchObject({
      args: ['--workspace', 'w'],
      env: { API_TOKEN: 't', REGION: 'eu-1' },
    });
    expect(reason(() => resolveSpec(spec, { config: { workspace: 'w', region: 'eu' }, secrets: {} }))).toBe(
      'missing_secret: secrets.token is not set',
    );
    const http = parseDefinition(
      JSON.stringify({ transport: 'http', url: 'https://h/mcp', headers: { A: '${secrets.a}' } }),
    );
    expect(reason(() => resolveSpec(http, { config: {}, secrets: { a: 'x\r\nInjected: 1' } }))).toMatch(
      /line break/,
    );
  });
});
