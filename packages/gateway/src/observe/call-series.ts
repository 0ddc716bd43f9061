// The two series every tool call touches, kept in plain maps and handed to prom-client's
// registry only at scrape time. prom-client's own Counter and Histogram hash their labels object
// on every inc()/observe() (their children too), which was most of a call's cost to metrics.
import type { Metric, Registry } from 'prom-client';

/** One sample as prom-client's registry formats it. */
interface Sample {
  readonly metricName?: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

/** What the registry reads from a metric: its name, help, type and samples. */
interface Collected {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  readonly values: readonly Sample[];
}

/** Registers `collect` in `registry` as a metric named `name` (prom-client reads its `get()`). */
function register(
  registry: Registry,
  name: string,
  help: string,
  type: Collected['type'],
  values: () => Sample[],
): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: (): Promise<Collected> =>
      Promise.resolve({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => undefined,
  };
  registry.registerMetric(metric as unknown as Metric);
}

/** A label value as the text format writes it: `\`, `"` and newlines escaped. */
function escaped(value: string | number): string {
  const text = String(value);
  return /[\\"\n]/.test(text)
    ? text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
    : text;
}

/** `samples` in the Prometheus text format, after their HELP and TYPE lines. */
function exposition(metric: Omit<Collected, 'aggregator'>): string {
  const lines = [`# HELP ${metric.name} ${metric.help}`, `# TYPE ${metric.name} ${metric.type}`];
  for (const sample of metric.values) {
    const labels = Object.entries(sample.labels)
      .map(([key, value]) => `${key}="${escaped(value)}"`)
      .join(',');
    lines.push(`${sample.metricName ?? metric.name}{${labels}} ${String(sample.value)}`);
  }
  return lines.join('\n');
}

/**
 * A series kept by the gateway itself: in the registry for whoever reads it, and written by
 * {@link text} straight from its samples, many times faster than the registry's own writer for
 * the ten thousand series a large catalogue makes.
 */
abstract class OwnSeries {
  readonly #name: string;
  readonly #help: string;
  readonly #type: Collected['type'];

  constructor(registry: Registry, name: string, help: string, type: Collected['type']) {
    this.#name = name;
    this.#help = help;
    this.#type = type;
    register(registry, name, help, type, () => this.samples());
  }

  /** The samples as they stand. */
  protected abstract samples(): Sample[];

  /** The series in the Prometheus text format. */
  text(): string {
    return exposition({
      name: this.#name,
      help: this.#help,
      type: this.#type,
      values: this.samples(),
    });
  }
}

/** A counter of tool calls by namespace, tool and outcome; see {@link CallCounter.inc}. */
export class CallCounter extends OwnSeries {
  readonly #counts = new Map<string, { labels: Sample['labels']; value: number }>();

  constructor(registry: Registry, name: string, help: string) {
    super(registry, name, help, 'counter');
  }

  protected samples(): Sample[] {
    return [...this.#counts.values()].map(({ labels, value }) => ({ labels, value }));
  }

  /** Counts one call. */
  inc(namespace: string, tool: string, outcome: string): void {
    const key = `${namespace}\u0000${tool}\u0000${outcome}`;
    const found = this.#counts.get(key);
    if (found !== undefined) found.value++;
    else this.#counts.set(key, { labels: { namespace, tool, outcome }, value: 1 });
  }
}

/** A histogram of durations (seconds) by one label; see {@link LabelledHistogram.observe}. */
export class LabelledHistogram extends OwnSeries {
  readonly #buckets: readonly number[];
  readonly #label: string;
  readonly #name: string;
  readonly #series = new Map<string, { counts: number[]; sum: number; count: number }>();

  constructor(
    registry: Registry,
    options: { name: string; help: string; label: string; buckets: readonly number[] },
  ) {
    super(registry, options.name, options.help, 'histogram');
    this.#name = options.name;
    this.#buckets = [...options.buckets].sort((a, b) => a - b);
    this.#label = options.label;
  }

  protected samples(): Sample[] {
    const name = this.#name;
    const samples: Sample[] = [];
    for (const [value, series] of this.#series) {
      let cumulative = 0;
      this.#buckets.forEach((le, i) => {
        cumulative += series.counts[i] ?? 0;
        samples.push({
          metricName: `${name}_bucket`,
          labels: { [this.#label]: value, le },
          value: cumulative,
        });
      });
      samples.push(
        {
          metricName: `${name}_bucket`,
          labels: { [this.#label]: value, le: '+Inf' },
          value: series.count,
        },
        { metricName: `${name}_sum`, labels: { [this.#label]: value }, value: series.sum },
        { metricName: `${name}_count`, labels: { [this.#label]: value }, value: series.count },
      );
    }
    return samples;
  }

  /** Records one duration, in seconds, under `value` of the label. */
  observe(value: string, seconds: number): void {
    let series = this.#series.get(value);
    if (series === undefined) {
      series = { counts: this.#buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(value, series);
    }
    series.sum += seconds;
    series.count++;
    const buckets = this.#buckets;
    for (let i = 0; i < buckets.length; i++) {
      if (seconds <= (buckets[i] ?? Infinity)) {
        series.counts[i] = (series.counts[i] ?? 0) + 1;
        return;
      }
    }
  }
}
