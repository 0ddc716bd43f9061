import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { CallEntry, MinuteStats } from '../api.js';
import { html } from '../html.js';
import { useApi } from './use-api.js';

interface Series {
  label: string;
  stroke: string;
  pick: (m: MinuteStats) => number | null;
}

/** One line chart over the last minutes; redrawn when the figures change. */
function Chart({
  title,
  minutes,
  series,
}: {
  title: string;
  minutes: MinuteStats[];
  series: Series[];
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const data: uPlot.AlignedData = [
      minutes.map((m) => m.t),
      ...series.map((s) => minutes.map(s.pick)),
    ];
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: 180,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2 }))],
        axes: [{}, { size: 50 }],
      },
      data,
      el,
    );
    return () => {
      plot.destroy();
    };
  }, [minutes, series]);
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <div ref=${box}></div>
  </figure>`;
}

const CALLS: Series[] = [
  { label: 'calls', stroke: '#2563eb', pick: (m) => m.calls },
  { label: 'errors', stroke: '#dc2626', pick: (m) => m.errors },
];
const LATENCY: Series[] = [
  { label: 'p50 ms', stroke: '#16a34a', pick: (m) => m.p50 },
  { label: 'p95 ms', stroke: '#d97706', pick: (m) => m.p95 },
];

/** Calls and errors per minute, and latency percentiles, from the calls the gateway served. */
export function Charts({ calls }: { calls: CallEntry[] }) {
  // Reloaded as calls end (the newest call's outcome changes the figures).
  const ended = calls.filter((c) => c.outcome !== undefined).length;
  const { data, error } = useApi<{ minutes: MinuteStats[]; total: number; errors: number }>(
    'stats',
    [ended],
  );
  return html`
    <h2>Charts</h2>
    ${error === undefined ? null : html`<p class="error">${error}</p>`}
    ${
      data === undefined
        ? null
        : html`<p id="totals">
              ${data.total} calls, ${data.errors} failed, since the gateway started.
            </p>
            <${Chart} title="Calls per minute" minutes=${data.minutes} series=${CALLS} />
            <${Chart} title="Latency (ms)" minutes=${data.minutes} series=${LATENCY} />`
    }
  `;
}
