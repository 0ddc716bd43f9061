import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { MAX_KEPT_PER_SESSION, RESULT_URI_PREFIX } from './call-resources.js';
import { textResource, type Resource } from './resources.js';
import { getSession } from '../session.js';
import { createToolkit } from '../toolkit/toolkit.js';

const fetchReport = defineTool({
  name: 'fetch_report',
  description: 'Fetches a report.',
  input: z.object({ id: z.number() }),
  output: z.object({ id: z.number(), lines: z.array(z.string()) }),
  run: ({ id }) => ({ id, lines: [`report ${id}`, 'all well'] }),
});

// What the last call of `summarise` saw in its session.
let seen: readonly Resource[] = [];
const summarise = defineTool({
  name: 'summarise',
  description: 'Summarises the resources handed to the call.',
  input: z.object({}),
  run: () => {
    seen = getSession().resources;
    return { count: seen.length };
  },
});

function codeOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => (error as { code?: unknown }).code,
  );
}

describe('resources handed to a call, and results kept for later calls', () => {
  it('hands resources to a tool through its session, and none to a call given none', async () => {
    const toolkit = createToolkit({ tools: [summarise] });
    const note = textResource('note', 'remember the milk', { uri: 'memo://note' });
    await toolkit.call(summarise, {}, { resources: [note] });
    expect(seen).toEqual([note]);
    await toolkit.call(summarise, {});
    expect(seen).toEqual([]);
  });

  it('keeps a result under a result URI, typed as before, for a later call to take by URI', async () => {
    const toolkit = createToolkit({ tools: [fetchReport, summarise] });
    const session = { id: 'session-a' };
    const report = await toolkit.call(fetchReport, { id: 7 }, { keep: true, session });
    expect(report.uri.startsWith(RESULT_URI_PREFIX)).toBe(true);
    expect(report.structured.lines).toEqual(['report 7', 'all well']);
    expect(JSON.parse(report.text ?? '')).toEqual({ id: 7, lines: ['report 7', 'all well'] });

    await toolkit.call(summarise, {}, { resources: [report.uri], session });
    expect(seen).toEqual([expect.objectContaining({ uri: report.uri, text: report.text })]);
  });

  it('keeps results per session: another session, or none, cannot read them', async () => {
    const toolkit = createToolkit({ tools: [fetchReport, summarise] });
    const report = await toolkit.call(
      fetchReport,
      { id: 1 },
      { keep: true, session: { id: 'alice' } },
    );
    expect(
      await codeOf(
        toolkit.call(summarise, {}, { resources: [report.uri], session: { id: 'bob' } }),
      ),
    ).toBe('not_found');
    expect(await codeOf(toolkit.readResource(report.uri))).toBe('not_found');
  });

  it('hands kept results to a prompt delegate as resources', async () => {
    let handed: readonly Resource[] = [];
    const toolkit = createToolkit({
      tools: [fetchReport],
      prompts: [{ name: 'review', template: 'Review the report.' }],
      delegate: {
        call: (_prompt, _input, options) => {
          handed = options.resources;
          return Promise.resolve('looks fine');
        },
      },
    });
    const report = await toolkit.call(fetchReport, { id: 2 }, { keep: true });
    const review = await toolkit.call('review', {}, { resources: [report.uri], keep: true });
    expect(handed.map((r) => r.uri)).toEqual([report.uri]);
    expect(review?.uri.startsWith(RESULT_URI_PREFIX)).toBe(true);
    expect((await toolkit.readResource(review?.uri ?? '')).text).toBe('looks fine');
  });

  it(`keeps the latest ${MAX_KEPT_PER_SESSION} results of a session`, async () => {
    const toolkit = createToolkit({ tools: [fetchReport] });
    const uris: string[] = [];
    for (let id = 0; id <= MAX_KEPT_PER_SESSION; id++) {
      uris.push((await toolkit.call(fetchReport, { id }, { keep: true })).uri);
    }
    expect(await codeOf(toolkit.readResource(uris[0] ?? ''))).toBe('not_found');
    expect((await toolkit.readResource(uris[1] ?? '')).text).toContain('"id": 1');
  });

  it('refuses a call handed a URI nothing answers, before running the tool', async () => {
    const toolkit = createToolkit({ tools: [summarise] });
    seen = [textResource('stale', 'from before')];
    expect(
      await codeOf(toolkit.call(summarise, {}, { resources: [`${RESULT_URI_PREFIX}nothing`] })),
    ).toBe('not_found');
    expect(await codeOf(toolkit.call(summarise, {}, { resources: ['memo://nowhere'] }))).toBe(
      'not_found',
    );
    expect(seen.map((r) => r.name)).toEqual(['stale']);
  });
});
