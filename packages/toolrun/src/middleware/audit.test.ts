import { beforeEach, describe, expect, it } from 'vitest';
import { createLocalBench, rejection, type LocalBench } from '../testing/helpers.js';
import { audit, REDACTED, type AuditRecord } from './audit.js';
import { rateLimit } from './rate-limit.js';

let bench: LocalBench;
let define: LocalBench['define'];
let runnerWith: LocalBench['runnerWith'];

beforeEach(() => {
  bench = createLocalBench();
  ({ define, runnerWith } = bench);
});

describe('audit', () => {
  it('records tool, backend, duration, outcome and code, with args redacted by default', async () => {
    const records: AuditRecord[] = [];
    const ok = define('ok', () => 'fine');
    const bad = define('bad', () => {
      throw new Error('nope');
    });
    const runner = runnerWith(
      audit((record) => {
        records.push(record);
      }),
    );
    await runner.run(ok, { password: 'hunter2' });
    await rejection(runner.run(bad, { token: 'secret' }));
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      toolId: ok,
      backend: { kind: 'local', local: { name: 'ok' } },
      outcome: 'success',
      args: { password: REDACTED },
    });
    expect(records[0]?.duration).toBeGreaterThanOrEqual(0);
    expect(records[1]).toMatchObject({ toolId: bad, outcome: 'error', errorCode: 'execution' });
    expect(JSON.stringify(records)).not.toContain('hunter2');
    expect(JSON.stringify(records)).not.toContain('secret');
  });

  it('keeps an argument named __proto__ in the redacted shape', async () => {
    const records: AuditRecord[] = [];
    const ok = define('ok', () => 'fine');
    await runnerWith(
      audit((record) => {
        records.push(record);
      }),
    ).run(ok, JSON.parse('{"__proto__":"x","a":1}') as Record<string, unknown>);
    expect(Object.keys(records[0]?.args as object)).toEqual(['__proto__', 'a']);
  });

  it('includes args when asked to', async () => {
    const records: AuditRecord[] = [];
    const id = define('ok', () => 'fine');
    await runnerWith(
      audit(
        (r) => {
          records.push(r);
        },
        { args: 'include' },
      ),
    ).run(id, { q: 1 });
    expect(records[0]?.args).toEqual({ q: 1 });
  });

  it('never lets a failing sink fail the call', async () => {
    const id = define('ok', () => 'fine');
    const throwing = runnerWith(
      audit(() => {
        throw new Error('sink down');
      }),
    );
    expect((await throwing.run(id)).structured).toBe('fine');
    const rejecting = runnerWith(audit(() => Promise.reject(new Error('sink down'))));
    expect((await rejecting.run(id)).structured).toBe('fine');
  });

  it('records codes raised by inner middleware', async () => {
    const records: AuditRecord[] = [];
    const id = define('ok', () => 'fine');
    const runner = runnerWith(
      audit((r) => {
        records.push(r);
      }),
      rateLimit({ limit: 1, interval: 60_000 }),
    );
    await runner.run(id);
    await rejection(runner.run(id));
    expect(records.map((r) => r.errorCode)).toEqual([undefined, 'rate_limited']);
  });
});
