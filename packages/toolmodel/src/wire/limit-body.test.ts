import { describe, expect, it } from 'vitest';
import { limitBody } from './limit-body.js';

const tooLarge = (): Error => new Error('too large');

/** A body of `chunks` chunks of `size` bytes each, as a server streams it. */
function streamed(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ === chunks) controller.close();
      else controller.enqueue(new Uint8Array(size));
    },
  });
}

describe('limitBody', () => {
  it('reads a body within the bound as it was', async () => {
    const limited = await limitBody(new Response('{"ok":true}'), 11, { tooLarge });
    expect(await limited.json()).toEqual({ ok: true });
  });

  it('refuses a declared length past the bound before reading a byte', async () => {
    const response = new Response('x'.repeat(20), { headers: { 'content-length': '20' } });
    await expect(limitBody(response, 10, { tooLarge })).rejects.toThrow('too large');
  });

  it('fails the read once an undeclared body passes the bound', async () => {
    const limited = await limitBody(new Response(streamed(100, 1024)), 10_000, { tooLarge });
    await expect(limited.arrayBuffer()).rejects.toThrow('too large');
  });

  it('gives an answer that has no body as it is', async () => {
    const empty = new Response(null, { status: 204 });
    expect(await limitBody(empty, 10, { tooLarge })).toBe(empty);
  });

  it('fails a read the signal ends through `failed`', async () => {
    const controller = new AbortController();
    const hanging = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) });
    const limited = await limitBody(new Response(hanging), 10, {
      tooLarge,
      failed: () => new Error('ended'),
      signal: controller.signal,
    });
    const reading = limited.arrayBuffer();
    controller.abort();
    await expect(reading).rejects.toThrow('ended');
  });
});
