import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config.js';
import { appliedConfig, changesSomething, planReload } from './plan.js';

const file = resolve('toolplane.config.json');
const parse = (value: unknown) => parseConfig(JSON.stringify(value), { file, env: {} });
const server = (command: string, extra: Record<string, unknown> = {}) => ({ command, ...extra });

describe('planReload', () => {
  it('adds, removes and replaces servers by namespace', () => {
    const running = parse({ mcpServers: { a: server('a'), b: server('b'), c: server('c') } });
    const next = parse({
      mcpServers: { a: server('a'), b: server('b', { env: { X: '1' } }), d: server('d') },
    });
    const plan = planReload(running, next);
    expect(plan.added.map((c) => c.namespace)).toEqual(['d']);
    expect(plan.removed).toEqual(['c']);
    expect(plan.changed.map((c) => c.namespace)).toEqual(['b']);
    expect(plan.gateway).toBe(false);
    expect(changesSomething(plan)).toBe(true);
  });

  it('sees filters, mode, naming and builtins as changes applied while running', () => {
    const running = parse({ mcpServers: { a: server('a') } });
    const next = parse({
      mcpServers: { a: server('a', { tools: { deny: ['x'] } }) },
      mode: 'search',
      naming: { separator: '-' },
      builtins: false,
    });
    const plan = planReload(running, next);
    expect(plan.gateway).toBe(true);
    expect(plan.builtins).toBe(false);
    expect(plan.changed).toEqual([]);
    expect(plan.restartOnly).toEqual([]);
  });

  it('names the keys that wait for a restart, and keeps their running values', () => {
    const running = parse({ store: 'memory', http: { port: 1000 } });
    const next = parse({ store: { sqlite: 'x.db' }, http: { port: 2000, path: '/other' } });
    const plan = planReload(running, next);
    expect(plan.restartOnly).toEqual(['store', 'http.port', 'http.path']);
    expect(changesSomething(plan)).toBe(false);
    const applied = appliedConfig(running, next);
    expect(applied.http.port).toBe(1000);
    expect(applied.store).toEqual({ kind: 'memory' });
    expect(planReload(applied, next).restartOnly).toEqual(plan.restartOnly);
  });

  it('names pinning, approval, search, log, telemetry, waitMs and strict as waiting for a restart', () => {
    const running = parse({ pinning: 'block' });
    const next = parse({
      pinning: 'off',
      approval: { tools: ['a:*'] },
      search: { learn: false },
      log: { level: 'debug' },
      telemetry: { otlp: { url: 'http://127.0.0.1:4318/v1/traces' } },
      waitMs: 5,
      strict: true,
    });
    const plan = planReload(running, next);
    expect(plan.restartOnly).toEqual([
      'pinning',
      'approval',
      'search',
      'log',
      'telemetry',
      'waitMs',
      'strict',
    ]);
    expect(changesSomething(plan)).toBe(false);
    const applied = appliedConfig(running, next);
    expect(applied.pinning).toBe('block');
    expect('approval' in applied).toBe(false);
    expect(applied.search).toEqual(running.search);
    expect(planReload(applied, next).restartOnly).toEqual(plan.restartOnly);
  });

  it('finds nothing to do for the same file', () => {
    const text = { mcpServers: { a: server('a') }, mode: 'code' };
    const plan = planReload(parse(text), parse(text));
    expect(changesSomething(plan)).toBe(false);
    expect(plan.restartOnly).toEqual([]);
  });
});
