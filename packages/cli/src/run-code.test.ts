import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, runCli, type Ran } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

// `toolplane run-code`: a program from a file or standard input, run against the config's tools
// (its filters holding) in code mode's sandbox. In process, but where the process's own stderr is
// what is looked at (QuickJS writes there, past the CLI's streams): that one runs the binary.

const fixture = fixtureCommand('stdio');
let dir: string;

function run(args: readonly string[], input?: string): Promise<Ran> {
  return runInProcess(args, { cwd: dir, ...(input === undefined ? {} : { input }) });
}

/** `toolplane ...args` as a child process, for what it writes on its own stderr. */
function runChild(args: readonly string[], input: string): Promise<Ran> {
  return runCli(args, { cwd: dir, input });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-run-code-'));
  await writeFile(
    join(dir, 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: {
        fix: { command: fixture.command, args: fixture.args, tools: { deny: ['fail'] } },
      },
      store: 'memory',
    }),
  );
  await writeFile(
    join(dir, 'sum.js'),
    [
      'const { sum } = await tools.fix.add({ a: 2, b: 3 });',
      "console.log('sum is', sum);",
      'return { sum, fail: typeof tools.fix.fail };',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('toolplane run-code', () => {
  it('runs a program file and prints its value, its logs and its calls as JSON', async () => {
    const ran = await run(['run-code', 'sum.js', '--json']);
    expect(ran.code).toBe(0);
    expect(json(ran)).toMatchObject({
      value: { sum: 5, fail: 'undefined' },
      logs: [{ level: 'log', text: 'sum is 5' }],
      calls: { total: 1 },
    });
  });

  it('reads the program from standard input', async () => {
    const ran = await run(['run-code', '-'], 'return (await tools.fix.add({ a: 1, b: 1 })).sum;');
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim()).toBe('2');
  });

  it('fails with execution, exit code 1, for a program that throws', async () => {
    const thrown = await run(['run-code', '-', '--json'], "throw new Error('no');");
    expect(thrown.code).toBe(1);
    expect(json(thrown)).toMatchObject({ error: { code: 'execution' } });
  });

  it('fails with invalid_argument, exit code 2, for a program that does not parse', async () => {
    const broken = await run(['run-code', '-', '--json'], 'return (;');
    expect(broken.code).toBe(2);
    expect(json(broken)).toMatchObject({ error: { code: 'invalid_argument' } });
  });

  it('ends a value past the result bound with resource_exhausted, and prints nothing of QuickJS', async () => {
    // It made QuickJS abort as the run was disposed: `internal` with the engine's own text, which
    // was printed on stderr as well.
    const ran = await runChild(['run-code', '-', '--json'], 'return "x".repeat(3e6);');
    expect(json(ran)).toMatchObject({ error: { code: 'resource_exhausted' } });
    expect(ran.stderr).not.toContain('Aborted(');
  });

  it('prints the declarations of the tools it may call', async () => {
    const ran = await run(['run-code', '-', '--declarations']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('readonly fix: {');
    expect(ran.stdout).not.toMatch(/^\s+fail\(/m);
  });
});

describe('toolplane run-code --timeout', () => {
  it('takes a bound in milliseconds', async () => {
    const ran = await run(['run-code', '-', '--timeout', '3000', '--json'], 'return 1;');
    expect(ran.code).toBe(0);
    expect(json(ran)).toMatchObject({ value: 1 });
  });

  it('ends a program that runs past it with timeout', async () => {
    const ran = await run(['run-code', '-', '--timeout', '500', '--json'], 'while (true) {}');
    expect(ran.code).not.toBe(0);
    expect(json(ran)).toMatchObject({ error: { code: 'timeout' } });
  });

  it("defaults to the config's codeMode.timeoutMs, and --timeout wins over it", async () => {
    const bounded = join(dir, 'bounded.config.json');
    await writeFile(bounded, JSON.stringify({ store: 'memory', codeMode: { timeoutMs: 300 } }));
    const spun = await run(['--config', bounded, 'run-code', '-', '--json'], 'while (true) {}');
    expect(json(spun)).toMatchObject({ error: { code: 'timeout' } });
    expect(json(spun).error.message).toMatch(/300 ms/);
    const wins = await run(
      ['--config', bounded, 'run-code', '-', '--timeout', '600', '--json'],
      'while (true) {}',
    );
    expect(json(wins).error.message).toMatch(/600 ms/);
  });

  it("bounds a program's searches by the config's codeMode.maxSearches", async () => {
    const bounded = join(dir, 'searches.config.json');
    await writeFile(bounded, JSON.stringify({ store: 'memory', codeMode: { maxSearches: 2 } }));
    const ran = await run(
      ['--config', bounded, 'run-code', '-', '--json'],
      'for (let i = 0; i < 3; i++) await search("time"); return 1;',
    );
    expect(json(ran)).toMatchObject({ error: { code: 'resource_exhausted' } });
    expect(json(ran).error.message).toContain('maxSearches');
  });

  it('names a program file it cannot read, why, and how to pass a program inline', async () => {
    const ran = await run(['run-code', 'return 1+1', '--json'], '');
    expect(ran.code).toBe(2);
    const { error } = json(ran) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toMatch(/^cannot read the program file "return 1\+1": ENOENT/);
    expect(error.message).toContain('pass - to read the program from standard input');
  });

  it('refuses a bound that is not a positive integer of milliseconds, naming --timeout', async () => {
    for (const bad of ['0', '1.5', 'soon', '2147483648']) {
      const ran = await run(['run-code', '-', '--timeout', bad, '--json'], 'return 1;');
      expect(ran.code).toBe(2);
      const { error } = json(ran) as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_argument');
      expect(error.message.startsWith('--timeout ')).toBe(true);
    }
  });
});

describe('toolplane run-code, a program that fails', () => {
  const failing =
    'console.log("step 1 done");\nconsole.warn("about to fail");\nthrow new Error("bad")';

  it('prints what it logged before the error', async () => {
    const ran = await run(['run-code', '-'], failing);
    expect(ran.code).toBe(1);
    const lines = ran.stderr.split('\n');
    const first = lines.indexOf('[log] step 1 done');
    const second = lines.indexOf('[warn] about to fail');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
    expect(lines.findIndex((line) => line.startsWith('error '))).toBeGreaterThan(second);
  });

  it("shows the control characters of its logs as escapes, never as the terminal's commands", async () => {
    const ran = await run(
      ['run-code', '-'],
      'console.log("red \\u001b[31mtext\\u001b]0;title\\u0007 \\u202eevil");\nreturn 1;',
    );
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('[log] red \\u{1b}[31mtext\\u{1b}]0;title\\u{7} \\u{202e}evil');
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(ran.stderr).not.toMatch(/[\u001b\u0007\u202e]/);
  });

  it('keeps what it logged in the JSON error', async () => {
    const ran = await run(['run-code', '-', '--json'], failing);
    expect(ran.code).toBe(1);
    expect(json(ran)).toMatchObject({
      error: {
        code: 'execution',
        logs: [
          { level: 'log', text: 'step 1 done' },
          { level: 'warn', text: 'about to fail' },
        ],
      },
    });
  });
});
