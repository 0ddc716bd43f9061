import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { ToolError } from '@toolplane/toolmodel';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dataResource,
  jsonResource,
  MAX_RESOURCE_BYTES,
  resource,
  textResource,
  toMcpResource,
  toResourceContents,
  validateResource,
  withDescription,
  withUri,
} from './resources.js';
import { readResource } from './read-resource.js';

// The first bytes of a real PNG: signature, then an IHDR chunk for a 1x1 RGBA image.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c489',
  'hex',
);
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');

describe('textResource', () => {
  it('builds a text resource with a default URI, MIME type and UTF-8 size', () => {
    expect(textResource('notes', 'naïve')).toEqual({
      uri: 'toolplane://resources/notes',
      name: 'notes',
      mimeType: 'text/plain',
      text: 'naïve',
      size: 6,
    });
  });

  it('keeps the given URI, title, description and MIME type', () => {
    const built = textResource('guide', '# Guide', {
      uri: 'docs://guide',
      title: 'The guide',
      description: 'How to',
      mimeType: 'text/markdown',
    });
    expect(built).toEqual({
      uri: 'docs://guide',
      name: 'guide',
      title: 'The guide',
      description: 'How to',
      mimeType: 'text/markdown',
      text: '# Guide',
      size: 7,
    });
  });

  it.each([
    ['an empty name', '', {}],
    ['a __proto__ name', '__proto__', {}],
    ['a name with a slash', 'a/b', {}],
    ['a relative URI', 'ok', { uri: 'notes/readme.md' }],
    ['a URI with a space', 'ok', { uri: 'docs://a b' }],
    ['a URI with a newline', 'ok', { uri: 'docs://a\nb' }],
    ['a scheme-less URI', 'ok', { uri: '//host/path' }],
    ['an over-long URI', 'ok', { uri: `docs://${'a'.repeat(5000)}` }],
  ])('throws invalid_resource for %s', async (_, name, options) => {
    expect(await rejectionCodeOf(() => textResource(name, 'x', options))).toBe('invalid_resource');
  });

  it('throws invalid_resource for text over the size bound', async () => {
    expect(
      await rejectionCodeOf(() => textResource('big', 'x'.repeat(MAX_RESOURCE_BYTES + 1))),
    ).toBe('invalid_resource');
  });
});

describe('jsonResource', () => {
  it('builds pretty-printed application/json text', () => {
    const built = jsonResource('config', { a: [1, null], b: 'x' });
    expect(built.mimeType).toBe('application/json');
    expect(JSON.parse(built.text!)).toEqual({ a: [1, null], b: 'x' });
    expect(built.text).toContain('\n  "a"');
  });

  it('throws invalid_resource for values that are not plain JSON', async () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    for (const value of [undefined, () => 1, 1n, Number.POSITIVE_INFINITY, new Map(), cyclic]) {
      expect(await rejectionCodeOf(() => jsonResource('bad', value))).toBe('invalid_resource');
    }
  });
});

describe('dataResource', () => {
  it('sniffs a PNG from its bytes whatever the file name says, and keeps it as base64', async () => {
    const built = await dataResource('pixel', PNG, { filename: 'pixel.txt' });
    expect(built.mimeType).toBe('image/png');
    expect(Buffer.from(built.blob!, 'base64').equals(PNG)).toBe(true);
    expect(built.size).toBe(PNG.length);
  });

  it('sniffs a PDF from its bytes', async () => {
    expect((await dataResource('doc', PDF)).mimeType).toBe('application/pdf');
  });

  it('takes the MIME type from the extension when the content has no signature', async () => {
    const built = await dataResource('readme', Buffer.from('# Title\n'), { filename: 'README.md' });
    expect(built).toMatchObject({ mimeType: 'text/markdown', text: '# Title\n' });
    const csv = await dataResource('table', Buffer.from('a,b\n1,2\n'), { filename: 'table.csv' });
    expect(csv).toMatchObject({ mimeType: 'text/csv', text: 'a,b\n1,2\n' });
  });

  it('treats TypeScript source as text, not as an MPEG transport stream', async () => {
    const built = await dataResource('mod', Buffer.from('export const a = 1;\n'), {
      filename: 'mod.ts',
    });
    expect(built).toMatchObject({ mimeType: 'text/x-typescript', text: 'export const a = 1;\n' });
  });

  it('decodes UTF-8 text without a name as text/plain and strips a UTF-8 BOM', async () => {
    expect(await dataResource('t', Buffer.from('héllo wörld'))).toMatchObject({
      mimeType: 'text/plain',
      text: 'héllo wörld',
    });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hi')]);
    expect((await dataResource('t', bom)).text).toBe('hi');
  });

  it('transcodes UTF-16 text with a byte-order mark, little and big endian', async () => {
    const text = 'Grüße, 世界';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf-16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(text, 'utf-16be')]);
    expect((await dataResource('le', le)).text).toBe(text);
    expect((await dataResource('be', be)).text).toBe(text);
  });

  it('transcodes UTF-16 text without a byte-order mark', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(4);
    expect((await dataResource('le', iconv.encode(text, 'utf-16le'))).text).toBe(text);
  });

  it('transcodes legacy encodings detected from the content', async () => {
    const french =
      "L'été dernier, nous sommes allés à la plage près de la forêt. Le café était très bon, " +
      'et les enfants ont joué toute la journée. Ça nous a plu, à tous.';
    const latin = await dataResource('fr', iconv.encode(french, 'windows-1252'), {
      filename: 'notes.txt',
    });
    expect(latin).toMatchObject({ mimeType: 'text/plain', text: french });
    const japanese =
      '日本語のテキストです。これはシフトJISで書かれた文章の例です。ひらがなとカタカナと漢字。';
    const sjis = await dataResource('ja', iconv.encode(japanese, 'Shift_JIS'));
    expect(sjis).toMatchObject({ mimeType: 'text/plain', text: japanese });
  });

  it('keeps bytes that are not text as application/octet-stream', async () => {
    const bytes = Buffer.from([0, 1, 2, 3, 0, 255, 254, 0, 7, 8, 0, 0, 19]);
    const built = await dataResource('raw', bytes);
    expect(built.mimeType).toBe('application/octet-stream');
    expect(Buffer.from(built.blob!, 'base64').equals(bytes)).toBe(true);
  });

  it('keeps 16-bit binary data as bytes even though its zero bytes look like UTF-16', async () => {
    const samples = Buffer.from(new Int16Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).buffer);
    const built = await dataResource('samples', samples);
    expect(built.mimeType).toBe('application/octet-stream');
    expect(Buffer.from(built.blob!, 'base64').equals(samples)).toBe(true);
  });

  it('keeps an explicit MIME type, even for bytes that look like text', async () => {
    const built = await dataResource('raw', Buffer.from('plain'), {
      mimeType: 'application/octet-stream',
    });
    expect(built).toMatchObject({ mimeType: 'application/octet-stream', blob: 'cGxhaW4=' });
  });

  it('round-trips any bytes exactly, as text or as base64', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
        const built = await dataResource('any', bytes, { mimeType: 'application/x-test' });
        expect(Buffer.from(built.blob!, 'base64').equals(Buffer.from(bytes))).toBe(true);
        expect(built.size).toBe(bytes.length);
      }),
      { numRuns: 100 },
    );
  });

  it('throws invalid_resource for data over the size bound or not bytes', async () => {
    const big = new Uint8Array(MAX_RESOURCE_BYTES + 1);
    expect(await rejectionCodeOf(() => dataResource('big', big))).toBe('invalid_resource');
    expect(await rejectionCodeOf(() => dataResource('s', 'text' as unknown as Uint8Array))).toBe(
      'invalid_resource',
    );
  });
});

describe('readResource', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolkit-resources-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file with a file: URI and a name from the file name', async () => {
    const path = join(dir, 'my notes.md');
    await writeFile(path, '# Notes\n');
    const read = await readResource(path);
    expect(read).toEqual({
      uri: pathToFileURL(path).href,
      name: 'my_notes.md',
      mimeType: 'text/markdown',
      text: '# Notes\n',
      size: 8,
    });
    expect(await readResource(pathToFileURL(path))).toEqual(read);
  });

  it('reads a Node stream, a web stream and an async iterable', async () => {
    const expected = { name: 'img', mimeType: 'image/png', size: PNG.length };
    const half = PNG.length / 2;
    const node = await readResource(Readable.from([PNG.subarray(0, half), PNG.subarray(half)]), {
      name: 'img',
    });
    expect(node).toMatchObject(expected);
    const web = await readResource(new Blob([PNG]).stream(), { name: 'img' });
    expect(web).toMatchObject(expected);
    async function* chunks(): AsyncGenerator<string> {
      for (const chunk of ['a,', 'b\n']) {
        await tick();
        yield chunk;
      }
    }
    expect(await readResource(chunks(), { name: 'csv', filename: 'x.csv' })).toMatchObject({
      mimeType: 'text/csv',
      text: 'a,b\n',
    });
  });

  it('stops reading a stream past maxBytes and throws invalid_resource', async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) {
        await tick();
        pulled++;
        yield new Uint8Array(1024);
      }
    }
    expect(
      await rejectionCodeOf(() => readResource(endless(), { name: 'x', maxBytes: 10_000 })),
    ).toBe('invalid_resource');
    expect(pulled).toBe(10);
  });

  it('throws invalid_resource for a file over maxBytes, before reading it', async () => {
    const path = join(dir, 'big.bin');
    await writeFile(path, Buffer.alloc(2048));
    expect(await rejectionCodeOf(() => readResource(path, { maxBytes: 1024 }))).toBe(
      'invalid_resource',
    );
  });

  it('throws not_found for a missing file, and invalid_resource for an unnamed stream', async () => {
    expect(await rejectionCodeOf(() => readResource(join(dir, 'missing.txt')))).toBe('not_found');
    expect(await rejectionCodeOf(() => readResource(Readable.from([PNG])))).toBe(
      'invalid_resource',
    );
  });

  it('throws cancelled for an aborted signal', async () => {
    expect(
      await rejectionCodeOf(() =>
        readResource(Readable.from([PNG]), { name: 'x', signal: AbortSignal.abort() }),
      ),
    ).toBe('cancelled');
  });

  it('throws invalid_resource when the stream fails, with the failure as cause', async () => {
    function* failing(): Generator<Uint8Array> {
      yield new Uint8Array(1);
      throw new Error('disk gone');
    }
    try {
      await readResource(Readable.from(failing()), { name: 'x' });
      expect.unreachable();
    } catch (error) {
      expect(ToolError.isInstance(error) && error.code).toBe('invalid_resource');
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
  });
});

describe('resource', () => {
  it('builds text from a string, data from bytes and JSON from other values', async () => {
    expect(await resource('s', 'hello')).toMatchObject({ mimeType: 'text/plain', text: 'hello' });
    expect(await resource('b', PNG)).toMatchObject({ mimeType: 'image/png' });
    expect(await resource('j', { a: 1 })).toMatchObject({ mimeType: 'application/json' });
    expect(await resource('n', 42)).toMatchObject({ text: '42' });
  });

  it('keeps a resource as is', async () => {
    const built = textResource('t', 'x', { uri: 'docs://t' });
    expect(await resource('ignored', built)).toEqual(built);
  });

  it('throws invalid_resource for a bad name or a value that fits nothing', async () => {
    expect(await rejectionCodeOf(() => resource('__proto__', 'x'))).toBe('invalid_resource');
    expect(await rejectionCodeOf(() => resource('f', () => 1))).toBe('invalid_resource');
    expect(await rejectionCodeOf(() => resource('u', undefined))).toBe('invalid_resource');
  });
});

describe('withUri and withDescription', () => {
  it('return changed copies and leave the original alone', () => {
    const original = textResource('t', 'x');
    const moved = withDescription(withUri(original, 'docs://t'), 'About t');
    expect(moved).toEqual({ ...original, uri: 'docs://t', description: 'About t' });
    expect(original.uri).toBe('toolplane://resources/t');
  });

  it('throw invalid_resource for a bad URI or description', async () => {
    const original = textResource('t', 'x');
    expect(await rejectionCodeOf(() => withUri(original, 'no-scheme'))).toBe('invalid_resource');
    expect(await rejectionCodeOf(() => withDescription(original, 3 as unknown as string))).toBe(
      'invalid_resource',
    );
  });
});

describe('MCP forms', () => {
  it('maps a resource onto MCP Resource and resources/read contents', () => {
    const built = textResource('t', 'x', { uri: 'docs://t', title: 'T', description: 'D' });
    expect(toMcpResource(built)).toEqual({
      uri: 'docs://t',
      name: 't',
      title: 'T',
      description: 'D',
      mimeType: 'text/plain',
      size: 1,
    });
    expect(toResourceContents(built)).toEqual({
      uri: 'docs://t',
      mimeType: 'text/plain',
      text: 'x',
    });
    const data = validateResource({ uri: 'files://b', name: 'b', blob: 'AAE=' });
    expect(toResourceContents(data)).toEqual({ uri: 'files://b', blob: 'AAE=' });
  });
});
