import { describe, expect, it } from 'vitest';
import { AuthFailureLimit } from './auth-failures.js';

/** A limit on a clock the test moves. */
function limitAt(options: ConstructorParameters<typeof AuthFailureLimit>[0] = {}) {
  const clock = { now: 1_000_000 };
  const limit = new AuthFailureLimit({ ...options, now: () => clock.now });
  const fail = (source: string, times = 1): void => {
    for (let i = 0; i < times; i++) limit.failed(source);
  };
  return { clock, limit, fail };
}

describe('AuthFailureLimit', () => {
  it('refuses a source once it has failed maxFailures times within the window, and no other', () => {
    const { limit, fail } = limitAt({ maxFailures: 3, refusalMs: 30_000 });
    fail('a', 2);
    expect(limit.retryAfter('a')).toBe(0);
    fail('a');
    expect(limit.retryAfter('a')).toBe(30);
    expect(limit.retryAfter('b')).toBe(0);
  });

  it('counts failures per window: spread out, they never add up to a refusal', () => {
    const { clock, limit, fail } = limitAt({ maxFailures: 3, windowMs: 10_000 });
    for (let round = 0; round < 5; round++) {
      fail('a', 2);
      clock.now += 10_000;
    }
    expect(limit.retryAfter('a')).toBe(0);
  });

  it('lets the source try again when the refusal ends, and doubles it on the next failure', () => {
    const { clock, limit, fail } = limitAt({
      maxFailures: 2,
      refusalMs: 10_000,
      maxRefusalMs: 35_000,
    });
    fail('a', 2);
    expect(limit.retryAfter('a')).toBe(10);
    clock.now += 10_000;
    expect(limit.retryAfter('a')).toBe(0);
    // One failure is enough now, and each refusal is twice the last, up to the cap.
    const refusals: number[] = [];
    for (let i = 0; i < 4; i++) {
      fail('a');
      const wait = limit.retryAfter('a');
      refusals.push(wait);
      clock.now += wait * 1000;
    }
    expect(refusals).toEqual([20, 35, 35, 35]);
  });

  it('ignores failures reported while the source is refused', () => {
    const { clock, limit, fail } = limitAt({ maxFailures: 1, refusalMs: 10_000 });
    fail('a');
    fail('a', 5);
    expect(limit.retryAfter('a')).toBe(10);
    clock.now += 10_000;
    expect(limit.retryAfter('a')).toBe(0);
  });

  it('takes back a failure whose check ended with no verdict, but not a refusal it began', () => {
    const { limit, fail } = limitAt({ maxFailures: 3, refusalMs: 30_000 });
    for (let i = 0; i < 5; i++) {
      fail('a');
      limit.unverified('a');
    }
    fail('a', 2);
    expect(limit.retryAfter('a')).toBe(0);
    fail('a');
    limit.unverified('a');
    expect(limit.retryAfter('a')).toBe(30);
    limit.unverified('nobody');
    expect(limit.retryAfter('nobody')).toBe(0);
  });

  it('forgets a source after a success', () => {
    const { limit, fail } = limitAt({ maxFailures: 3 });
    fail('a', 2);
    limit.succeeded('a');
    fail('a', 2);
    expect(limit.retryAfter('a')).toBe(0);
    expect(limit.size).toBe(1);
  });

  it('forgets a refused source maxRefusalMs after its refusal ends, with its full budget back', () => {
    const { clock, limit, fail } = limitAt({
      maxFailures: 2,
      refusalMs: 10_000,
      maxRefusalMs: 60_000,
    });
    fail('a', 2);
    clock.now += 10_000 + 60_000;
    expect(limit.retryAfter('a')).toBe(0);
    expect(limit.size).toBe(0);
    fail('a');
    expect(limit.retryAfter('a')).toBe(0);
  });

  it('remembers at most maxSources sources, dropping the least recently failed', () => {
    const { limit, fail } = limitAt({ maxFailures: 2, maxSources: 100 });
    fail('attacker', 2);
    for (let i = 0; i < 10_000; i++) fail(`10.0.${String(i >> 8)}.${String(i & 255)}`);
    expect(limit.size).toBe(100);
    // The first source was the least recently failed: made room for.
    expect(limit.retryAfter('attacker')).toBe(0);
    // A source failing again moves to the back of the line.
    fail('kept', 2);
    for (let i = 0; i < 99; i++) fail(`192.0.2.${String(i)}`);
    expect(limit.retryAfter('kept')).toBeGreaterThan(0);
  });

  it('refuses settings that are not positive integers, or a cap below the refusal', () => {
    for (const options of [
      { maxFailures: 0 },
      { windowMs: 1.5 },
      { maxSources: -1 },
      { refusalMs: Number.NaN },
      { refusalMs: 60_000, maxRefusalMs: 1_000 },
    ]) {
      expect(() => new AuthFailureLimit(options)).toThrow(
        expect.objectContaining({ code: 'invalid_config' }),
      );
    }
    // A first refusal longer than the default cap raises the cap with it.
    expect(() => new AuthFailureLimit({ refusalMs: 3_600_000 })).not.toThrow();
  });
});
