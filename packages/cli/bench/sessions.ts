// Heap held per idle HTTP session, the figure behind `maxSessions` (default 2,000): the gateway
// the CLI serves (its builtin tools, no upstreams) takes 2,000 raw `initialize` requests, as from
// clients that never come back, and the heap after a full GC is compared with the heap before.
// Median of three runs, each on a fresh gateway. Run with --expose-gc.
import { serveHttp } from '@toolplane/gateway';
import { createToolkit } from '@toolplane/toolkit';
import { builtinTools } from '@toolplane/builtins';

const SESSIONS = 2_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bench', version: '0' },
  },
});
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

const perSession: number[] = [];
for (let run = 0; run < 3; run++) {
  const toolkit = createToolkit({ tools: builtinTools() });
  const gateway = await serveHttp(toolkit, { port: 0, maxSessions: SESSIONS });
  try {
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < SESSIONS; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          const response = await fetch(gateway.url, { method: 'POST', headers, body });
          if (!response.ok) throw new Error(`initialize answered ${String(response.status)}`);
          await response.text();
        }),
      );
    }
    gc();
    const held = process.memoryUsage().heapUsed - before;
    if (gateway.sessionCount !== SESSIONS) {
      throw new Error(
        `expected ${String(SESSIONS)} sessions, the gateway holds ${String(gateway.sessionCount)}`,
      );
    }
    perSession.push(held / SESSIONS);
  } finally {
    await gateway.close();
    await toolkit.close();
  }
}
perSession.sort((a, b) => a - b);
console.log(
  `heap per idle HTTP session: ${((perSession[1] ?? 0) / 1024).toFixed(1)} KB (median of 3 runs of ${SESSIONS.toLocaleString('en')} sessions; runs: ${perSession.map((b) => (b / 1024).toFixed(1)).join(', ')} KB)`,
);
