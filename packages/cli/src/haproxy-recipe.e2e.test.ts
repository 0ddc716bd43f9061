// The fleet's HAProxy recipe (docs/fleet.md) in front of two plain HTTP servers, one SIGKILLed:
// every request begun once it has exited is answered by the other, with HAProxy still counting
// the dead one as up (as it does between two health checks, longer on a loaded machine).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, waitForOutput } from './testing/cli-process.js';
import { freePorts, hasHaproxy, startHaproxy, type Haproxy } from './testing/fleet.js';

// Answers every request with its own name once it has read the body; says LISTENING when up.
const BACKEND = `
const http = require('node:http');
const [name, port] = process.argv.slice(1);
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end(name));
}).listen(Number(port), '127.0.0.1', () => console.log('LISTENING'));
`;

const inCi = process.env.CI === 'true';

describe.runIf(hasHaproxy() || inCi)('the HAProxy recipe with an instance SIGKILLed', () => {
  let dir: string;
  let haproxy: Haproxy | undefined;
  const backends = new Map<string, ChildProcess>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolplane-haproxy-'));
    const [front = 0, a = 0, b = 0] = await freePorts(3);
    for (const [name, port] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const child = spawn(process.execPath, ['-e', BACKEND, name, String(port)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      backends.set(name, child);
      await waitForOutput(child, 'stdout', /LISTENING/);
    }
    // Health checks a minute apart: the dead instance stays "up" for the whole test.
    haproxy = await startHaproxy(dir, {
      port: front,
      servers: [
        { name: 'a', port: a },
        { name: 'b', port: b },
      ],
      checkIntervalMs: 60_000,
    });
  });

  afterAll(async () => {
    await haproxy?.stop();
    for (const child of backends.values()) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('answers every POST begun after the kill from the instance still alive', async () => {
    const url = haproxy?.url ?? new URL('x:');
    const post = async (): Promise<string> => {
      const answer = await fetch(url, { method: 'POST', body: '{}' });
      expect(answer.status).toBe(200);
      return answer.text();
    };
    // Requests one after another on the client's kept-alive connection, so that HAProxy holds
    // idle connections to both instances.
    const before = [];
    for (let i = 0; i < 8; i++) before.push(await post());
    expect(new Set(before)).toEqual(new Set(['a', 'b']));
    const victim = backends.get('b');
    if (victim === undefined) throw new Error('no instance b');
    const gone = exited(victim);
    victim.kill('SIGKILL');
    await gone;
    const after = [];
    for (let i = 0; i < 12; i++) after.push(await post());
    expect(after).toEqual(Array.from({ length: 12 }, () => 'a'));
  });
});
