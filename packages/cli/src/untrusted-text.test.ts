import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureCommand } from '@toolplane/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDir } from './testing/cli-process.js';
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

describe("an upstream's control characters on the operator's terminal", { timeout: 30_000 }, () => {
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

describe("an upstream's control characters in what it answers", { timeout: 30_000 }, () => {
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
