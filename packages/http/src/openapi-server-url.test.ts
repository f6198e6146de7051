import { describe, expect, it } from 'vitest';
import { openApiServerUrl } from './openapi-server-url';

describe('openApiServerUrl', () => {
  const at = (host: string | undefined, url = 'http://127.0.0.1/openapi.json') =>
    openApiServerUrl({ url, host });

  it('names the scheme and the Host the request reached the server with', () => {
    expect(at('127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(at('localhost')).toBe('http://localhost');
    expect(at('[::1]:9371')).toBe('http://[::1]:9371');
    expect(at('Cyrnel.Example.COM.:443', 'https://x/openapi.json')).toBe('https://cyrnel.example.com.:443');
  });

  it('falls back to the document’s own origin for a missing Host or one that is not a plain host[:port]', () => {
    for (const host of [
      undefined,
      '',
      'evil.example/path',
      'user@evil.example',
      'evil.example#x',
      'evil.example?x',
      'a b',
      '"quoted"',
      '<script>',
      'x:99999',
      'x:1:2',
      'x:',
      '-x.example',
      `${'a'.repeat(250)}.example`,
      '[::1',
      '::1',
    ]) {
      expect(at(host), String(host)).toBe('/');
    }
  });

  it('prefers the public URL it is given, without its trailing slashes', () => {
    expect(openApiServerUrl({ url: 'http://x/', host: 'x' }, 'https://cyrnel.example.com//')).toBe(
      'https://cyrnel.example.com',
    );
    expect(openApiServerUrl({ url: 'http://x/', host: 'x' }, '')).toBe('http://x');
  });
});
