// Memory held per open HTTP session: opens N sessions with raw initialize requests (as a client
// that never comes back would) and compares the heap after GC, and the resident set (the client
// runs in this process too, its sockets closed by then; the RSS also holds what the heap grew
// by and does not give back). Median of three runs.
import { createToolkit } from '@toolplane/toolkit';
import { serveHttp } from '@toolplane/gateway';
import { INITIALIZE_BODY, POST_HEADERS } from '../src/testing/raw-client.js';

const SESSIONS = 2_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const perSession: number[] = [];
const rssPerSession: number[] = [];
for (let run = 0; run < 3; run++) {
  const toolkit = createToolkit({});
  const gateway = await serveHttp(toolkit, { port: 0, maxSessions: SESSIONS });
  gc();
  const before = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage.rss();
  for (let i = 0; i < SESSIONS; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await fetch(gateway.url, {
          method: 'POST',
          headers: POST_HEADERS,
          body: INITIALIZE_BODY,
        });
        await res.text();
      }),
    );
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  perSession.push((after - before) / gateway.sessionCount);
  rssPerSession.push((process.memoryUsage.rss() - rssBefore) / gateway.sessionCount);
  console.log(
    `run ${run + 1}: ${gateway.sessionCount} sessions, ${((after - before) / 1e6).toFixed(1)} MB`,
  );
  await gateway.close();
  await toolkit.close();
}
perSession.sort((a, b) => a - b);
rssPerSession.sort((a, b) => a - b);
console.log(`heap per session: ${((perSession[1] ?? 0) / 1024).toFixed(1)} KB (median of 3)`);
console.log(
  `RSS per session: ${((rssPerSession[1] ?? 0) / 1024).toFixed(1)} KB (median of 3; the first run pays for the process's own growth)`,
);
