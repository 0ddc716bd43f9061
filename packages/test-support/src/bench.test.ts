import { describe, expect, it } from 'vitest';
import { compare, median, overhead, timing, type Samples } from './bench.js';

describe('median', () => {
  it('takes the middle value, the lower one of an even count, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2);
    expect(median([])).toBeNaN();
  });
});

describe('overhead', () => {
  // Round 2 ran while the machine was busy: both cases slowed alike, so the paired differences
  // stay put where a difference of separate medians would not.
  const samples: Samples = {
    rounds: 3,
    iterations: 1,
    wall: { floor: [1, 10, 1.1], adapter: [2, 11.5, 2.2] },
    cpu: { floor: [1, 1, 1], adapter: [1.5, 1.6, 1.4] },
  };

  it('pairs the rounds: medians of the differences and of the ratios (wall and CPU), and min to min', () => {
    const o = overhead(samples, 'adapter', 'floor');
    expect(o.wall).toBeCloseTo(1.1);
    expect(o.cpu).toBeCloseTo(0.5);
    expect(o.wallMin).toBeCloseTo(1);
    expect(o.ratio).toBeCloseTo(2);
    expect(o.cpuRatio).toBeCloseTo(1.5);
  });

  it('divides by the units per case, e.g. per call of a turn of 16', () => {
    expect(overhead(samples, 'adapter', 'floor', 16).wall).toBeCloseTo(1.1 / 16);
  });

  it('gives each case its median and minimum of wall-clock and CPU time', () => {
    expect(timing(samples, 'adapter')).toEqual({ wall: 2.2, wallMin: 2, cpu: 1.5, cpuMin: 1.4 });
  });
});

describe('compare', () => {
  it('runs every case the same number of times and records one sample per round', async () => {
    const runs = { a: 0, b: 0 };
    const samples = await compare(
      {
        a: () => Promise.resolve(runs.a++),
        b: () => Promise.resolve(runs.b++),
      },
      { iterations: 10, rounds: 4, warmup: 2 },
    );
    expect(runs).toEqual({ a: 42, b: 42 });
    expect(samples.wall.a).toHaveLength(4);
    expect(samples.cpu.b).toHaveLength(4);
    expect(samples.wall.a?.every((value) => value >= 0)).toBe(true);
  });
});
