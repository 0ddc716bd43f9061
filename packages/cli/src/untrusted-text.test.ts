import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureCommand } from '@toolplane/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDir, withoutStartProgress } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

// What an upstream says about its tools is printed for the operator, never obeyed by the
// terminal: escape sequences (colours, the window title, cursor moves), bells and carriage
// returns in a description come out as visible `\u{…}` escapes.
const dir = useTempDir('untrusted-text');
const HOSTILE = 'Echo \u001b[31mRED\u001b[0m \u001b]0;pwned\u0007 line\rOVER';
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f]/;

beforeAll(async () => {
  const description = join(dir(), 'echo-description.txt');
  await writeFile(description, HOSTILE);
  const fixture = fixtureCommand('stdio');
  await writeFile(
    join(dir(), 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: {
        fx: {
          command: fixture.command,
          args: fixture.args,
          env: { TOOLPLANE_FIXTURE_ECHO_FILE: description },
        },
      },
      store: 'memory',
      builtins: false,
    }),
  );
});

describe("an upstream's control characters on the operator's terminal", () => {
  it.each([
    ['tools', 'list'],
    ['tools', 'search', 'echo'],
    ['tools', 'describe', 'fx:echo'],
  ])('are shown, not obeyed, by %s %s', async (...args: string[]) => {
    const ran = await runInProcess(args, { cwd: dir() });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('\\u{1b}[31mRED');
    expect(ran.stdout).not.toMatch(CONTROLS);
  });

  it('are shown, not obeyed, in an error an upstream sent', async () => {
    const ran = await runInProcess(['tools', 'call', 'fx:fail', `message=${HOSTILE}`], {
      cwd: dir(),
    });
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain('\\u{1b}[31mRED');
    expect(ran.stderr).not.toMatch(CONTROLS);
  });
});

describe("an upstream's control characters in its lists", () => {
  beforeAll(async () => {
    // A bare JSON-RPC server with control characters in every part of a tool, a prompt, a
    // resource and a resource template the commands print.
    const ESC = '\u001b]0;pwned\u0007';
    const server = `
      import { createInterface } from 'node:readline';
      const ESC = ${JSON.stringify(ESC)};
      const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
      createInterface({ input: process.stdin }).on('line', (line) => {
        const msg = JSON.parse(line);
        if (msg.id === undefined) return;
        const ok = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
        if (msg.method === 'initialize') {
          return ok({ protocolVersion: msg.params.protocolVersion,
            capabilities: { tools: {}, prompts: {}, resources: {} },
            serverInfo: { name: 'odd', version: '1' } });
        }
        if (msg.method === 'tools/list') {
          return ok({ tools: [{ name: 'odd', annotations: { ['hint' + ESC]: true },
            inputSchema: { type: 'object', properties: {
              ['name' + ESC]: { type: 'type' + ESC, default: 'x\u009b2J', description: 'd' },
              listed: { enum: ['a\u202eb'] },
            } } }] });
        }
        if (msg.method === 'prompts/list') {
          return ok({ prompts: [{ name: 'p' + ESC, arguments: [{ name: 'arg' + ESC, required: true }] }] });
        }
        if (msg.method === 'resources/list') {
          return ok({ resources: [{ uri: 'odd://r' + ESC, name: 'r', mimeType: 'text/x' + ESC }] });
        }
        if (msg.method === 'resources/templates/list') {
          return ok({ resourceTemplates: [{ uriTemplate: 'odd://{id}' + ESC, name: 't', mimeType: 'text/y' + ESC }] });
        }
        send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no ' + msg.method } });
      });
    `;
    await writeFile(join(dir(), 'odd-server.mjs'), server);
    await writeFile(
      join(dir(), 'odd.config.json'),
      JSON.stringify({
        mcpServers: { odd: { command: process.execPath, args: ['odd-server.mjs'] } },
        store: 'memory',
        builtins: false,
      }),
    );
  });

  it('are shown, not obeyed, by tools describe: argument names, types, defaults and enums', async () => {
    const ran = await runInProcess(
      ['--config', 'odd.config.json', 'tools', 'describe', 'odd:odd'],
      {
        cwd: dir(),
      },
    );
    expect(withoutStartProgress(ran.stderr)).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('name\\u{1b}]0;pwned\\u{7}');
    expect(ran.stdout).toContain('type\\u{1b}]0;pwned');
    expect(ran.stdout).toContain('\\u{9b}2J');
    expect(ran.stdout).toContain('a\\u{202e}b');
    expect(ran.stdout).not.toMatch(CONTROLS);
    expect(ran.stdout).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
  });

  it.each([
    ['prompts', 'list', 'p\\u{1b}]0;pwned', 'arg\\u{1b}]0;pwned'],
    ['resources', 'list', 'odd://r\\u{1b}]0;pwned', 'text/x\\u{1b}]0;pwned'],
    ['resources', 'templates', 'odd://{id}\\u{1b}]0;pwned', 'text/y\\u{1b}]0;pwned'],
  ])('are shown, not obeyed, by %s %s', async (noun, verb, ...shown) => {
    const ran = await runInProcess(['--config', 'odd.config.json', noun, verb], { cwd: dir() });
    expect(ran.code).toBe(0);
    for (const text of shown) expect(ran.stdout).toContain(text);
    expect(ran.stdout).not.toMatch(CONTROLS);
  });
});

describe("an upstream's control characters in what it answers", () => {
  it('are shown, not obeyed, on a terminal, and passed on as they came to a pipe', async () => {
    const args = ['tools', 'call', 'fx:echo', `text=${HOSTILE}`];
    const [terminal, piped] = await Promise.all([
      runInProcess(args, { cwd: dir(), tty: true }),
      runInProcess(args, { cwd: dir() }),
    ]);
    expect(terminal.code).toBe(0);
    expect(terminal.stdout).toContain('\\u{1b}[31mRED');
    expect(terminal.stdout).not.toMatch(CONTROLS);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(`${HOSTILE}\n`);
  });
});

describe('usage errors with --json', () => {
  it('are an { error } on stdout too', async () => {
    const ran = await runInProcess(['--json', 'tools', 'bogus'], { cwd: dir() });
    expect(ran.code).toBe(2);
    expect(JSON.parse(ran.stdout)).toMatchObject({ error: { code: 'invalid_argument' } });
  });
});
