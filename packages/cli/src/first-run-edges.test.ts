// Round two of a newcomer's rough edges, through the CLI in process: where a JSON config is
// broken, and which chain step is wrong, counted as people count.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDir } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

const tempDir = useTempDir('first-run-edges');

beforeAll(async () => {
  const dir = tempDir();
  await writeFile(join(dir, 'bad.json'), '{\n  "store": "memory",\n}\n');
  await writeFile(join(dir, 'ok.json'), '{ "store": "memory" }\n');
  await writeFile(join(dir, 'empty-tool.yaml'), '- tool: builtin:time_now\n- tool: ""\n');
  await writeFile(
    join(dir, 'unknown-tool.yaml'),
    '- tool: builtin:time_now\n- tool: builtin:time_nwo\n',
  );
  await writeFile(
    join(dir, 'bad-args.yaml'),
    '- tool: builtin:time_now\n- tool: builtin:time_now\n  usePrevious: true\n',
  );
});

const run = (args: readonly string[]) => runInProcess(args, { cwd: tempDir() });

describe('first-run edges', { timeout: 60_000 }, () => {
  it('reports a config that is not valid JSON at file:line:column, exit 2', async () => {
    const ran = await run(['--config', 'bad.json', 'tools', 'list']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/bad\.json:3:1: not valid JSON: /);
    expect(ran.stderr).not.toMatch(/position/);
  });

  it('counts chain steps from 1 in every error', async () => {
    const [empty, unknown, refused] = await Promise.all([
      run(['--config', 'ok.json', 'chain', 'run', 'empty-tool.yaml']),
      run(['--config', 'ok.json', 'chain', 'run', 'unknown-tool.yaml']),
      run(['--config', 'ok.json', 'chain', 'run', 'bad-args.yaml']),
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/empty-tool\.yaml: step 2: tool: must name a tool/);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/step 2: .*time_nwo/);
    // usePrevious hands step 1's result to a builtin that takes no `previous`: refused, step 2.
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/chain step 2 failed: .*previous/);
  });
});
