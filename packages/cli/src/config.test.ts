import { join } from 'node:path';
import { ToolError } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { MASK } from './secrets.js';

const file = join('project', 'toolplane.config.json');

function problem(config: unknown, env: Record<string, string> = {}): string {
  try {
    parseConfig(JSON.stringify(config), { file, env });
  } catch (error) {
    if (ToolError.isInstance(error) && error.code === 'invalid_config') return error.message;
    throw error;
  }
  throw new Error('expected an invalid_config error');
}

describe('parseConfig', () => {
  it('accepts a Claude Desktop mcpServers file as it is', () => {
    const config = parseConfig(
      JSON.stringify({
        globalShortcut: 'Ctrl+Space',
        mcpServers: {
          'my files': { command: 'npx', args: ['-y', 'server'], env: { KEY: 'abcd1234' } },
          remote: {
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer tok-123456' },
          },
          off: { command: 'x', disabled: true },
        },
      }),
      { file, env: {} },
    );
    expect(config.connectors.map((c) => [c.namespace, c.transport])).toEqual([
      ['my-files', 'stdio'],
      ['remote', 'http'],
    ]);
    expect(config.store).toEqual({
      kind: 'sqlite',
      path: expect.stringMatching(/project[\\/]\.toolplane[\\/]toolplane\.db$/),
    });
    expect(config.connectors[1]?.display).toBe(
      `https://mcp.example.com/mcp (Authorization: ${MASK})`,
    );
    expect(config.secrets.redact('key abcd1234 and Bearer tok-123456')).toBe(
      `key ${MASK} and ${MASK}`,
    );
  });

  it('substitutes ${VAR} and ${VAR:-default}, and masks what it substituted', () => {
    const config = parseConfig(
      JSON.stringify({
        connectors: { gh: { url: 'https://${HOST:-api.example.com}/mcp?key=${KEY}' } },
      }),
      { file, env: { KEY: 'zzz-secret' } },
    );
    expect(config.connectors[0]?.display).toBe(`https://api.example.com/mcp?key=${MASK}`);
  });

  it('reads toolplane keys: namespaces, filters, naming, mode, store, http, prompts', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: { a: { command: 'x', namespace: 'alpha', tools: { deny: ['rm'] } } },
        mode: 'search',
        naming: { separator: '_' },
        store: { postgres: 'postgres://u:pg-password@127.0.0.1/db' },
        http: {
          port: 9000,
          token: 'a-token-of-16-chars',
          maxSessions: 50,
          headersTimeoutMs: 2000,
          streamAfterMs: 500,
          maxConnectionsPerSource: 64,
          trustedProxies: ['10.0.0.0/8'],
        },
        prompts: 'agents',
      }),
      { file, env: {} },
    );
    expect(config.connectors[0]?.namespace).toBe('alpha');
    expect(config.filter).toEqual({ alpha: { deny: ['rm'] } });
    expect(config.mode).toBe('search');
    expect(config.http).toMatchObject({
      host: '127.0.0.1',
      port: 9000,
      path: '/mcp',
      maxSessions: 50,
      headersTimeoutMs: 2000,
      streamAfterMs: 500,
      maxConnectionsPerSource: 64,
      trustedProxies: ['10.0.0.0/8'],
    });
    expect(config.promptsDir).toMatch(/project[\\/]agents$/);
    expect(config.secrets.redact('pg-password a-token-of-16-chars')).toBe(`${MASK} ${MASK}`);
  });

  it('reads http.authFailureLimit (an object, or false), and names a wrong one', () => {
    const read = (authFailureLimit: unknown) =>
      parseConfig(JSON.stringify({ http: { authFailureLimit } }), { file, env: {} }).http
        .authFailureLimit;
    expect(read({ maxFailures: 5, refusalMs: 30_000 })).toEqual({
      maxFailures: 5,
      refusalMs: 30_000,
    });
    expect(read(false)).toBe(false);
    expect(parseConfig('{}', { file, env: {} }).http.authFailureLimit).toBeUndefined();
    const wrong = (authFailureLimit: unknown) => problem({ http: { authFailureLimit } });
    expect(wrong({ maxFailure: 5 })).toMatch(
      /http\.authFailureLimit: unknown key "maxFailure"; did you mean "maxFailures"\?/,
    );
    expect(wrong(true)).toMatch(/http\.authFailureLimit: must be false \(no limit\) or an object/);
    expect(wrong({ maxFailures: 0 })).toMatch(/http\.authFailureLimit\.maxFailures: /);
    expect(wrong({ refusalMs: 120_000, maxRefusalMs: 60_000 })).toMatch(
      /http\.authFailureLimit\.maxRefusalMs: must be at least refusalMs/,
    );
  });

  it('names the path and the problem for each kind of mistake', () => {
    expect(problem({ mcpServers: { github: { url: 'ftp://x' } } })).toMatch(
      /mcpServers\.github\.url: must be an http\(s\) URL/,
    );
    expect(problem({ mcpServers: { a: { args: [] } } })).toMatch(/mcpServers\.a: needs "command"/);
    expect(problem({ mcpServers: { a: { command: 'x', url: 'https://x' } } })).toMatch(
      /mcpServers\.a: has both/,
    );
    expect(problem({ mcpServers: { a: { url: 'https://x/${NOPE}' } } })).toMatch(
      /mcpServers\.a\.url: environment variable NOPE is not set/,
    );
    expect(problem({ mcpServers: { builtin: { command: 'x' } } })).toMatch(
      /mcpServers\.builtin: namespace "builtin" is already used/,
    );
    expect(
      problem({ mcpServers: { a: { command: 'x' } }, connectors: { a: { command: 'y' } } }),
    ).toMatch(/connectors\.a: namespace "a"/);
    expect(problem({ mcpServers: { a: { module: '@toolplane/no-such-package' } } })).toMatch(
      /mcpServers\.a\.module: cannot find/,
    );
    expect(problem({ http: { port: 70_000 } })).toMatch(/^toolplane\.config\.json: http\.port: /);
    expect(problem({ http: { streamAfterMs: -1 } })).toMatch(
      /^toolplane\.config\.json: http\.streamAfterMs: /,
    );
    expect(problem({ mode: 'everything' })).toMatch(/mode: /);
    expect(problem({ store: { postgres: 'mysql://x' } })).toMatch(/store/);
    // A misspelt store names the forms it may take and the one meant, not "Invalid input".
    expect(problem({ store: 'sqllite' })).toMatch(
      /store: must be "sqlite", "memory", \{ sqlite: FILE \} or \{ postgres: .*did you mean "sqlite"\?/,
    );
    expect(problem({ store: 5 })).toMatch(/store: must be "sqlite", "memory"/);
  });

  it("reads code mode's bounds, and names a wrong one", () => {
    const config = parseConfig(
      JSON.stringify({ mode: 'code', codeMode: { timeoutMs: 5_000, maxConcurrentRuns: 8 } }),
      { file, env: {} },
    );
    expect(config.codeMode).toEqual({ timeoutMs: 5_000, maxConcurrentRuns: 8 });
    expect(parseConfig('{}', { file, env: {} }).codeMode).toEqual({});
    expect(problem({ codeMode: { timeout: 5_000 } })).toMatch(
      /codeMode: unknown key "timeout"; did you mean "timeoutMs"\?/,
    );
    expect(problem({ codeMode: { timeoutMs: 0 } })).toMatch(/codeMode\.timeoutMs: /);
    expect(problem({ codeMode: { maxConcurrentRuns: 1_000 } })).toMatch(
      /codeMode\.maxConcurrentRuns: must be at most 256/,
    );
  });

  it('reports YAML and JSON syntax errors with the file name', () => {
    expect(() => parseConfig('{ "a": ', { file, env: {} })).toThrow(
      /toolplane\.config\.json:1:8: not valid JSON: Unexpected end of JSON input/,
    );
    // A trailing comma on line 2: the error points at the line and column after it.
    expect(() => parseConfig('{\n  "store": "memory",\n}', { file, env: {} })).toThrow(
      /toolplane\.config\.json:3:1: not valid JSON: [^\n]*property name$/,
    );
    expect(() => parseConfig('a: [1,\n', { file: 'x.yaml', env: {} })).toThrow(
      /x\.yaml:\d+:\d+: not valid YAML/,
    );
    // A byte-order mark before JSON is read past; an alias bomb is a config error naming the file.
    expect(parseConfig('\ufeff{"store":"memory"}', { file, env: {} }).store).toEqual({
      kind: 'memory',
    });
    const levels = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 6; i++) {
      const prior = `*a${String(i - 1)}`;
      levels.push(
        `a${String(i)}: &a${String(i)} [${Array.from({ length: 9 }, () => prior).join(', ')}]`,
      );
    }
    expect(() => parseConfig(levels.join('\n'), { file: 'bomb.yaml', env: {} })).toThrow(
      expect.objectContaining({
        code: 'invalid_config',
        message: expect.stringMatching(/^bomb\.yaml: /) as string,
      }),
    );
    // The position is said once, in front, not again at the end of the parser's words.
    expect(() =>
      parseConfig('mcpServers:\n  a:\n    command: node\n   args: [x]\n', {
        file: 'x.yaml',
        env: {},
      }),
    ).toThrow(/^x\.yaml:4:\d+: not valid YAML: [^\n]*[a-z]$/);
  });
});

describe('parseConfig with unknown keys', () => {
  it('refuses an unknown top-level section, listing the known keys', () => {
    const message = problem({ security: { token: 'a-token-of-16-chars' }, mcpServers: {} });
    expect(message).toMatch(
      /^toolplane\.config\.json: unknown key "security" \(known keys: .*http.*auth/,
    );
  });

  it('suggests the nearest key for a misspelling at the top level and in each section', () => {
    expect(problem({ mcpServer: {} })).toMatch(
      /unknown key "mcpServer"; did you mean "mcpServers"\?/,
    );
    expect(problem({ http: { tokn: 'a-token-of-16-chars' } })).toMatch(
      /^toolplane\.config\.json: http: unknown key "tokn"; did you mean "token"\?/,
    );
    expect(problem({ naming: { seperator: '_' } })).toMatch(/did you mean "separator"/);
    expect(problem({ mcpServers: { a: { comand: 'x' } } })).toMatch(
      /mcpServers\.a: unknown key "comand"; did you mean "command"\?/,
    );
    expect(problem({ mcpServers: { a: { command: 'x', tools: { denny: ['rm'] } } } })).toMatch(
      /mcpServers\.a\.tools: unknown key "denny"; did you mean "deny"\?/,
    );
  });

  it('ignores the keys Claude Desktop, Cursor and Cline files carry for themselves', () => {
    const config = parseConfig(
      JSON.stringify({
        $schema: 'https://example.com/schema.json',
        globalShortcut: 'Ctrl+Space',
        preferences: { menuBarEnabled: true },
        mcpServers: {
          a: { command: 'x', autoApprove: ['read'], alwaysAllow: [], timeout: 60, type: 'stdio' },
          b: { url: 'https://x.example/mcp', transportType: 'streamable-http' },
        },
      }),
      { file, env: {} },
    );
    expect(config.connectors.map((c) => c.namespace)).toEqual(['a', 'b']);
  });
});

describe('parseConfig waitMs', () => {
  it('defaults to 15 s and reads the key', () => {
    expect(parseConfig('{}', { file, env: {} }).waitMs).toBe(15_000);
    expect(parseConfig('{ "waitMs": 500 }', { file, env: {} }).waitMs).toBe(500);
    expect(problem({ waitMs: -1 })).toMatch(/waitMs: /);
  });
});

describe("parseConfig a server's timeout and strict", () => {
  it('reads timeout as seconds (Cursor and Cline), from 1000 on as milliseconds', () => {
    const starts = (timeout: unknown) =>
      parseConfig(JSON.stringify({ mcpServers: { a: { command: 'x', timeout } } }), {
        file,
        env: {},
      }).connectors[0]?.startTimeoutMs;
    expect(starts(120)).toBe(120_000);
    expect(starts(1.5)).toBe(1_500);
    expect(starts(90_000)).toBe(90_000);
    expect(
      parseConfig('{ "mcpServers": { "a": { "command": "x" } } }', { file, env: {} }).connectors[0]
        ?.startTimeoutMs,
    ).toBeUndefined();
    expect(problem({ mcpServers: { a: { command: 'x', timeout: 0 } } })).toMatch(
      /mcpServers\.a\.timeout: must be a positive number of seconds/,
    );
  });

  it('is not strict unless told', () => {
    expect(parseConfig('{}', { file, env: {} }).strict).toBe(false);
    expect(parseConfig('{ "strict": true }', { file, env: {} }).strict).toBe(true);
  });
});

describe('parseConfig pingIntervalMs', () => {
  it('defaults to 30 s, takes 0 for off, and refuses what is too often', () => {
    expect(parseConfig('{}', { file, env: {} }).pingIntervalMs).toBe(30_000);
    expect(parseConfig('{ "pingIntervalMs": 0 }', { file, env: {} }).pingIntervalMs).toBe(0);
    expect(parseConfig('{ "pingIntervalMs": 5000 }', { file, env: {} }).pingIntervalMs).toBe(5_000);
    expect(problem({ pingIntervalMs: 10 })).toMatch(/pingIntervalMs: must be 0 \(off\) or 1000/);
  });
});

describe('parseConfig era', () => {
  it('reads each server’s era, auto unless it says 2025 or 2026 (a YAML number too)', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: {
          a: { command: 'x' },
          old: { command: 'y', era: '2025' },
          new: { url: 'https://example.com/mcp', era: 2026 },
        },
      }),
      { file, env: {} },
    );
    expect(config.connectors.map((c) => [c.namespace, c.era])).toEqual([
      ['a', 'auto'],
      ['old', '2025'],
      ['new', '2026'],
    ]);
  });

  it('refuses an era it does not know, naming the path and the choices', () => {
    for (const era of ['2024', 'latest', 2027, true, null, { __proto__: '2026' }]) {
      expect(problem({ mcpServers: { a: { command: 'x', era } } })).toMatch(
        /mcpServers\.a\.era: must be "auto", "2025" or "2026"/,
      );
    }
  });
});

describe('parseConfig connection', () => {
  it('reads each server’s connection, shared unless it says per-session', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: { a: { command: 'x' }, browser: { command: 'y', connection: 'per-session' } },
        sessionConnections: { max: 8, idleMs: 60_000 },
      }),
      { file, env: {} },
    );
    expect(config.connectors.map((c) => [c.namespace, c.connection])).toEqual([
      ['a', 'shared'],
      ['browser', 'per-session'],
    ]);
    expect(config.sessionConnections).toEqual({ max: 8, idleMs: 60_000 });
    expect(parseConfig('{}', { file, env: {} }).sessionConnections).toEqual({});
  });

  it('refuses an unknown connection and bad bounds, naming the path', () => {
    expect(problem({ mcpServers: { a: { command: 'x', connection: 'pooled' } } })).toMatch(
      /mcpServers\.a\.connection: .*"shared".*"per-session"/,
    );
    expect(problem({ sessionConnections: { max: 0 } })).toMatch(/sessionConnections\.max: /);
    expect(problem({ sessionConnections: { idleMs: 10 } })).toMatch(/sessionConnections\.idleMs: /);
    expect(problem({ sessionConnections: { maxx: 3 } })).toMatch(
      /sessionConnections: unknown key "maxx"; did you mean "max"\?/,
    );
  });

  it("reads the builtins' worker threads, and refuses a misspelt or bad setting", () => {
    const config = parseConfig(JSON.stringify({ builtinWorkers: { threads: 3, perCaller: 1 } }), {
      file,
      env: {},
    });
    expect(config.builtinWorkers).toEqual({ threads: 3, perCaller: 1 });
    expect(parseConfig('{}', { file, env: {} }).builtinWorkers).toBeUndefined();
    expect(problem({ builtinWorkers: { threads: 0 } })).toMatch(/builtinWorkers\.threads: /);
    expect(problem({ builtinWorkers: { thread: 2 } })).toMatch(
      /builtinWorkers: unknown key "thread"; did you mean "threads"\?/,
    );
  });
});

describe('parseConfig with auth (OAuth)', () => {
  it('reads issuer, audience, scopes and introspection, masking the introspection secret', () => {
    const config = parseConfig(
      JSON.stringify({
        auth: {
          issuer: 'https://as.example.com',
          audience: 'https://mcp.example.com/mcp',
          scopes: { 'tools:read': { tags: ['read'] }, admin: { namespaces: ['*'] } },
          introspection: { clientId: 'gateway', clientSecret: '${GATEWAY_SECRET}' },
        },
      }),
      { file, env: { GATEWAY_SECRET: 'an-introspection-secret' } },
    );
    expect(config.auth).toEqual({
      issuer: 'https://as.example.com',
      audience: 'https://mcp.example.com/mcp',
      scopes: { 'tools:read': { tags: ['read'] }, admin: { namespaces: ['*'] } },
      introspection: { clientId: 'gateway', clientSecret: 'an-introspection-secret' },
    });
    expect(config.secrets.redact('secret: an-introspection-secret')).toBe(`secret: ${MASK}`);
  });

  it('reads prompt and resource grants, challengeScopes and the introspection cache', () => {
    const auth = {
      issuer: 'https://as.example.com',
      scopes: { docs: { prompts: ['summarize'], resources: ['file:///docs/*'] } },
      challengeScopes: ['docs'],
      introspection: { clientId: 'g', clientSecret: 's', cache: { maxTtlSec: 30 } },
    };
    expect(parseConfig(JSON.stringify({ auth }), { file, env: {} }).auth).toEqual(auth);
    expect(
      problem({ auth: { ...auth, introspection: { clientId: 'g', clientSecret: 's', cache: 1 } } }),
    ).toMatch(/auth\.introspection\.cache/);
  });

  it('refuses auth together with http.token', () => {
    expect(
      problem({
        auth: { issuer: 'https://as.example.com' },
        http: { token: 'a-token-of-16-chars' },
      }),
    ).toMatch(/^toolplane\.config\.json: auth: auth \(OAuth\) and http\.token .* exclusive/);
  });

  it('names what is wrong inside auth', () => {
    expect(problem({ auth: {} })).toMatch(/auth\.issuer: /);
    expect(problem({ auth: { issuer: 'not a url' } })).toMatch(
      /auth\.issuer: must be an http\(s\) URL/,
    );
    expect(problem({ auth: { issuer: 'https://a', audince: 'x' } })).toMatch(
      /auth: unknown key "audince"; did you mean "audience"\?/,
    );
    expect(problem({ auth: { issuer: 'https://a', scopes: { s: { tag: ['x'] } } } })).toMatch(
      /auth\.scopes\.s: unknown key "tag"; did you mean "tags"\?/,
    );
    expect(problem({ auth: { issuer: 'https://a', scopes: { s: { tools: 'x' } } } })).toMatch(
      /auth\.scopes\.s\.tools: /,
    );
  });
});
