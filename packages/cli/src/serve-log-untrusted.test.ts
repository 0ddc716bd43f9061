// What an upstream writes reaches `serve`'s log as text: its escape sequences are shown, not
// obeyed by the operator's terminal, and its newlines cannot start a line that passes for one of
// the gateway's own.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';

const dir = useTempDir('serve-log-untrusted');
// A server that fails at start, having written a new window title, a screen clear and a forged
// line of the gateway's own to its stderr (whose tail the failure quotes).
const HOSTILE =
  'boom \u001b]0;pwned\u0007 \u001b[2J\n[gw1] fx connected (pid 1)\nwarning config reloaded';
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f]/;

describe("an upstream's text in the serve log", { timeout: 60_000 }, () => {
  it('is shown with its controls visible and its further lines indented under the failure', async () => {
    const file = join(dir(), 'toolplane.config.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          bad: {
            command: process.execPath,
            args: ['-e', `process.stderr.write(${JSON.stringify(HOSTILE)}); process.exit(3)`],
          },
        },
        store: 'memory',
        builtins: false,
      }),
    );
    const child = startCli([...SERVE_HTTP, '--config', file], {
      cwd: dir(),
      env: { TOOLPLANE_INSTANCE_ID: 'gw1' },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await Promise.all([listeningUrl(child), waitForStderr(child, /bad failed/)]);
      expect(stderr).toContain('\\u{1b}]0;pwned\\u{7}');
      expect(stderr).not.toMatch(CONTROLS);
      // The server's lines are there, under the failure, never as lines of their own.
      expect(stderr).toMatch(/^ +\[gw1\] fx connected \(pid 1\)$/m);
      expect(stderr).not.toMatch(/^\[gw1\] fx connected/m);
      expect(stderr).not.toMatch(/^warning config reloaded/m);
    } finally {
      await stop(child, 'SIGTERM');
    }
  });
});
