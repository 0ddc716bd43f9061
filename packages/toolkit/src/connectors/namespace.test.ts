import { describe, expect, it } from 'vitest';
import { inferNamespace, sanitizeNamespace } from './namespace.js';

describe('inferNamespace', () => {
  it.each([
    [
      {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio'],
      },
      'server-everything',
    ],
    [{ command: 'uvx', args: ['mcp-server-git', '--repository', '.'] }, 'mcp-server-git'],
    [{ command: '/usr/local/bin/github-mcp-server', args: ['stdio'] }, 'github-mcp-server'],
    [
      { command: 'node', args: ['--enable-source-maps', 'servers/weather/dist/index.js'] },
      'weather',
    ],
    [{ command: 'python3', args: ['-m', 'notes_server'] }, 'notes_server'],
    [{ command: 'docker' }, 'docker'],
    [
      {
        command: 'node',
        args: ['--import', 'file:///x/tsx/loader.mjs', 'fixtures/serve-fixture.ts'],
      },
      'serve-fixture',
    ],
  ])('names a stdio command %j by what it runs', (source, expected) => {
    expect(inferNamespace(source)).toBe(expected);
  });

  it.each([
    ['https://api.github.com/mcp', 'github'],
    ['https://mcp.linear.app/sse', 'linear'],
    ['https://example.com/mcp?key=1', 'example'],
    ['http://127.0.0.1:3000/weather/mcp', 'weather'],
    ['http://localhost:8080/mcp', 'localhost-8080'],
    ['http://[::1]:9000/', 'localhost-9000'],
    ['http://127.0.0.1:9000', 'localhost-9000'],
  ])('names the URL %s by its host or path', (url, expected) => {
    expect(inferNamespace(url)).toBe(expected);
    expect(inferNamespace({ url })).toBe(expected);
  });
});

describe('sanitizeNamespace', () => {
  it('replaces disallowed characters and bounds the length', () => {
    expect(sanitizeNamespace('@scope/my.server')).toBe('scope-my-server');
    expect(sanitizeNamespace('x'.repeat(100))).toHaveLength(64);
    expect(sanitizeNamespace('...')).toBe('server');
    expect(sanitizeNamespace('__proto__')).toBe('__proto__');
  });
});
