import { PassThrough } from 'node:stream';
import { createToolkit } from '@toolplane/toolkit';
import { errorMessageOf, rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { describe, expect, it } from 'vitest';
import { serveHttp } from './http/serve.js';
import { createMcpServer } from './server.js';
import { serveStdio } from './stdio/serve.js';

const refusal = (run: () => unknown): string => errorMessageOf(run, 'invalid_config');

async function rejection(run: () => Promise<unknown>): Promise<string> {
  const error = await run().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  return refusal(() => {
    throw error;
  });
}

describe('gateway options', () => {
  it('refuse a filter key they do not know: a misspelled allow list allowed every tool', () => {
    expect(
      refusal(() =>
        createMcpServer(createToolkit(), { filter: { github: { alow: ['get_*'] } } as never }),
      ),
    ).toBe('createMcpServer: filter.github: unknown option "alow"; did you mean "allow"?');
    expect(
      refusal(() =>
        createMcpServer(createToolkit(), { filter: { github: { deny: 'delete_*' } } as never }),
      ),
    ).toBe('createMcpServer: filter.github.deny must be a list of strings');
  });

  it('refuse an unknown option before listening, naming the nearest one', async () => {
    expect(
      await rejection(() => serveHttp(createToolkit(), { port: 0, maxBody: 1024 } as never)),
    ).toBe('serveHttp: unknown option "maxBody"; did you mean "maxBodyBytes"?');
    expect(await rejection(() => serveStdio(createToolkit(), { maxLineByte: 10 } as never))).toBe(
      'serveStdio: unknown option "maxLineByte"; did you mean "maxLineBytes"?',
    );
  });

  it('refuse a stdio line bound or drain a timer cannot keep (NaN bounded no line)', async () => {
    const bad = [
      ...[Number.NaN, 0, -1].map((maxLineBytes) => ({ maxLineBytes })),
      // A drain's timer set so fired at once: the requests in flight were not waited for.
      ...[Number.NaN, -1, 2 ** 31].map((drainMs) => ({ drainMs })),
    ];
    for (const options of bad) {
      const served = serveStdio(createToolkit(), {
        stdin: new PassThrough(),
        stdout: new PassThrough(),
        ...options,
      });
      const refused = await served.then(
        async (gateway) => {
          await gateway.close();
          return 'served';
        },
        (error: unknown) => (error as { code?: string }).code,
      );
      expect(refused, JSON.stringify(options)).toBe('invalid_config');
    }
  });

  it('refuse a mode, page size or text they cannot use, at start and on reconfigure', async () => {
    // `serach` served every tool on its own; a pageSize of 0 (or NaN) listed no tool at all; a
    // transparent namespace that is not a string made none transparent; instructions that are
    // not text reached every client's initialize result as they were.
    const bad: [Record<string, unknown>, string][] = [
      [
        { mode: 'serach' },
        `createMcpServer: mode must be 'tools', 'search' or 'code', got the string "serach"`,
      ],
      [{ pageSize: 0 }, 'pageSize must be a whole number, 1 or more, got 0'],
      [{ pageSize: Number.NaN }, 'pageSize must be a whole number, 1 or more, got NaN'],
      [{ transparent: 5 }, 'createMcpServer: transparent must be a string, got 5'],
      [
        { instructions: { text: 'hi' } },
        'createMcpServer: instructions must be a string, got an object',
      ],
    ];
    for (const [options, message] of bad) {
      expect(refusal(() => createMcpServer(createToolkit(), options as never))).toBe(message);
    }
    const gateway = await serveHttp(createToolkit(), { port: 0 });
    try {
      expect(
        refusal(() => {
          gateway.reconfigure({ mode: 'code mode' } as never);
        }),
      ).toMatch(/^reconfigure: mode must be/);
    } finally {
      await gateway.close();
    }
  });

  it('refuse a duration a timer cannot keep (a drain would end as it began)', async () => {
    expect(
      await rejection(() => serveHttp(createToolkit(), { port: 0, drainMs: 2 ** 31 })),
    ).toMatch(/^drainMs must be a number of milliseconds 0 or more, at most 2147483647/);
    expect(
      await rejection(() => serveHttp(createToolkit(), { port: 0, sessionIdleMs: Number.NaN })),
    ).toMatch(/^sessionIdleMs must be a whole number of milliseconds/);
    expect(
      await rejectionCodeOf(() => serveHttp(createToolkit(), { port: 0, listTtlMs: -1 })),
    ).toBe('invalid_config');
  });

  it('refuse a reconfigure with a bad filter, and serve on as before', async () => {
    const gateway = await serveHttp(createToolkit(), { port: 0, filter: { fx: { deny: ['*'] } } });
    try {
      expect(
        refusal(() => {
          gateway.reconfigure({ filter: { fx: { dny: ['*'] } } as never });
        }),
      ).toBe('reconfigure: filter.fx: unknown option "dny"; did you mean "deny"?');
      expect((await fetch(new URL('/healthz', gateway.url))).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('refuse a separator no exposed tool name can hold, at start and on reconfigure', async () => {
    // `/` is outside the characters of a tool name: every namespaced tool went out shortened
    // with a hash (fx_add_efd51e28), and nothing said why.
    expect(await rejection(() => serveHttp(createToolkit(), { port: 0, separator: '/' }))).toBe(
      'serveHttp: separator must be 1 to 64 of A-Z a-z 0-9 _ - (the characters of an exposed tool name), got the string "/"',
    );
    expect(refusal(() => createMcpServer(createToolkit(), { separator: 7 as never }))).toBe(
      'createMcpServer: separator must be a string, got 7',
    );
    const gateway = await serveHttp(createToolkit(), { port: 0, separator: '-' });
    try {
      expect(
        refusal(() => {
          gateway.reconfigure({ separator: '.' });
        }),
      ).toMatch(/^reconfigure: separator must be 1 to 64 of/);
      expect((await fetch(new URL('/healthz', gateway.url))).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
