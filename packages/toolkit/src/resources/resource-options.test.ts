import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessageOf, rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResource } from './read-resource.js';
import { dataResource, jsonResource, resource, textResource } from './resources.js';

// A resource builder's options, misspelt from JavaScript, were ignored without a word.
describe('the resource builders, an option they do not take', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolkit-resource-options-'));
    file = join(dir, 'notes.md');
    await writeFile(file, '# Notes');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is refused by textResource and jsonResource: a misspelt mimeType served text/plain', () => {
    expect(
      errorMessageOf(
        () => textResource('notes', '# Notes', { mimetype: 'text/markdown' } as never),
        'invalid_resource',
      ),
    ).toBe('textResource: unknown option "mimetype"; did you mean "mimeType"?');
    expect(
      errorMessageOf(
        () => jsonResource('data', {}, { titel: 'Data' } as never),
        'invalid_resource',
      ),
    ).toBe('jsonResource: unknown option "titel"; did you mean "title"?');
  });

  it('is refused by dataResource, resource and readResource', async () => {
    const bytes = new TextEncoder().encode('# Notes');
    expect(
      await rejectionCodeOf(() => dataResource('notes', bytes, { fileName: 'n.md' } as never)),
    ).toBe('invalid_resource');
    expect(await rejectionCodeOf(() => resource('notes', 'x', { urI: 'a://b' } as never))).toBe(
      'invalid_resource',
    );
    // `maxbytes: 1` kept the 16 MiB bound: the file was read whole.
    await expect(readResource(file, { maxbytes: 1 } as never)).rejects.toThrow(
      'readResource: unknown option "maxbytes"; did you mean "maxBytes"?',
    );
  });

  it('takes every option it documents', async () => {
    const read = await readResource(file, {
      name: 'notes',
      uri: 'docs://notes',
      title: 'Notes',
      description: 'The notes.',
      mimeType: 'text/markdown',
      filename: 'notes.md',
      maxBytes: 1_000,
      signal: AbortSignal.timeout(60_000),
    });
    expect(read).toMatchObject({ uri: 'docs://notes', mimeType: 'text/markdown', text: '# Notes' });
    const made = await resource('notes', '# Notes', {
      filename: 'notes.md',
      mimeType: 'text/markdown',
    });
    expect(made.mimeType).toBe('text/markdown');
  });
});
