import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { describe, expect, it } from 'vitest';
import { liveResource } from './live-resources.js';
import { textResource } from './resources.js';
import { createToolkit } from '../toolkit/toolkit.js';

// The first bytes of a PNG file: enough for the content to say what it is.
const PNG_BYTES = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
]);

function codeOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => (error as { code?: unknown }).code,
  );
}

describe('live resources', () => {
  it('refuse an option they do not take: a misspelt timeoutMs kept the default bound', () => {
    const options = { uri: 'live://clock', timeout: 50 };
    expect(
      errorMessageOf(
        () => liveResource('clock', () => 'tick', options as never),
        'invalid_resource',
      ),
    ).toBe('liveResource: unknown option "timeout"; did you mean "timeoutMs"?');
  });

  it('are read anew on every read and listed by what they say of themselves', async () => {
    let reads = 0;
    const toolkit = createToolkit({
      resources: [
        liveResource('clock', () => `tick ${++reads}`, {
          uri: 'live://clock',
          description: 'A counter read on every read.',
        }),
      ],
    });
    const listed = await toolkit.list({ type: 'resource' });
    expect(listed.resources).toEqual([
      expect.objectContaining({
        uri: 'live://clock',
        resource: {
          uri: 'live://clock',
          name: 'clock',
          description: 'A counter read on every read.',
        },
      }),
    ]);
    expect(reads).toBe(0);
    expect((await toolkit.readResource('live://clock')).text).toBe('tick 1');
    const second = await toolkit.readResource('live://clock');
    expect(second).toMatchObject({ uri: 'live://clock', name: 'clock', mimeType: 'text/plain' });
    expect(second.text).toBe('tick 2');
  });

  it('serve bytes as what they are, and a built resource under their own URI and name', async () => {
    const toolkit = createToolkit({
      resources: [
        liveResource('snapshot', () => PNG_BYTES, { uri: 'live://snapshot' }),
        liveResource(
          'report',
          () => textResource('elsewhere', '# Report', { mimeType: 'text/markdown' }),
          {
            uri: 'live://report',
          },
        ),
      ],
    });
    const image = await toolkit.readResource('live://snapshot');
    expect(image.mimeType).toBe('image/png');
    expect(Buffer.from(image.blob ?? '', 'base64')).toEqual(Buffer.from(PNG_BYTES));
    expect(await toolkit.readResource('live://report')).toMatchObject({
      uri: 'live://report',
      name: 'report',
      mimeType: 'text/markdown',
      text: '# Report',
    });
  });

  it('end a read that takes too long, even one that ignores its signal', async () => {
    const toolkit = createToolkit({
      resources: [
        liveResource('stuck', () => new Promise<string>(() => undefined), {
          uri: 'live://stuck',
          timeoutMs: 50,
        }),
      ],
    });
    // A read that never ends would hold this test to its own timeout instead.
    expect(await codeOf(toolkit.readResource('live://stuck'))).toBe('timeout');
  });

  it('hand the reader signal on, and end with cancelled when it aborts', async () => {
    let seen: AbortSignal | undefined;
    const toolkit = createToolkit({
      resources: [
        liveResource(
          'slow',
          (signal) => {
            seen = signal;
            return new Promise<string>(() => undefined);
          },
          { uri: 'live://slow' },
        ),
      ],
    });
    const controller = new AbortController();
    const reading = codeOf(toolkit.readResource('live://slow', { signal: controller.signal }));
    // Aborted once the reader has it, not on a guess of when that is.
    await expect.poll(() => seen).toBeDefined();
    controller.abort();
    expect(await reading).toBe('cancelled');
    expect(seen?.aborted).toBe(true);
  });

  it('report a failing read and contents of the wrong kind as tool errors', async () => {
    const toolkit = createToolkit({
      resources: [
        liveResource(
          'broken',
          () => {
            throw new Error('disk gone');
          },
          { uri: 'live://broken' },
        ),
        liveResource('number', () => 42 as unknown as string, { uri: 'live://number' }),
        liveResource('huge', () => 'x'.repeat(17 * 1024 * 1024), { uri: 'live://huge' }),
      ],
    });
    await expect(toolkit.readResource('live://broken')).rejects.toMatchObject({
      code: 'execution',
      message: expect.stringContaining('disk gone'),
    });
    expect(await codeOf(toolkit.readResource('live://number'))).toBe('invalid_resource');
    expect(await codeOf(toolkit.readResource('live://huge'))).toBe('invalid_resource');
  });

  it('refuse a bad definition when added', () => {
    const toolkit = createToolkit();
    const bad = [
      () => liveResource('no read', undefined as unknown as () => string),
      () => liveResource('ok', () => '', { timeoutMs: 0 }),
      // Past what a timer keeps, it would have ended every read at once.
      () => liveResource('ok', () => '', { timeoutMs: 2 ** 31 }),
      () => liveResource('ok', () => '', { uri: 'not a uri' }),
      () => {
        toolkit.addResource({ uri: 'live://x', name: 'x', read: 'nope' } as never);
      },
    ];
    for (const attempt of bad) {
      expect(attempt).toThrow(expect.objectContaining({ code: 'invalid_resource' }));
    }
  });
});
