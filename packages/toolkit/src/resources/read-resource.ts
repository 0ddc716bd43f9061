import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { throwIfAborted, ToolError } from '@toolplane/toolmodel';
import {
  checkResourceOptions,
  checkSize,
  dataFrom,
  MAX_RESOURCE_BYTES,
  READ_RESOURCE_OPTION_KEYS,
  type ReadResourceOptions,
  type Resource,
} from './resources.js';

/**
 * Reads a resource from a file path, a `file:` URL or a byte stream (a Node `Readable`, a web
 * `ReadableStream` or any async iterable of bytes), then builds it as {@link dataResource} does.
 * A file's URI defaults to its `file:` URL and its name to the file name (characters outside the
 * name rule become `_`).
 *
 * @throws {ToolError} `not_found` for a missing file; `invalid_resource` for content over
 * `maxBytes`, a stream without `name`, or as {@link dataResource}; `cancelled` when `signal` aborts.
 */
export async function readResource(
  source: string | URL | AsyncIterable<Uint8Array | string>,
  options: ReadResourceOptions = {},
): Promise<Resource> {
  checkResourceOptions(options, READ_RESOURCE_OPTION_KEYS, 'readResource');
  const { signal, maxBytes = MAX_RESOURCE_BYTES } = options;
  throwIfAborted(signal);
  if (typeof source === 'string' || source instanceof URL) {
    const path = resolve(typeof source === 'string' ? source : fileURLToPath(source));
    const file = basename(path);
    const name = options.name ?? nameFromFile(file);
    let data: Buffer;
    try {
      checkSize(name, (await stat(path)).size, maxBytes);
      data = await readFile(path, { signal });
    } catch (error) {
      if (ToolError.isInstance(error)) throw error;
      throwIfAborted(signal);
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      throw new ToolError(
        missing ? 'not_found' : 'invalid_resource',
        `cannot read resource file ${JSON.stringify(path)}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    return dataFrom(name, data, {
      ...options,
      uri: options.uri ?? pathToFileURL(path).href,
      filename: options.filename ?? file,
    });
  }
  if (options.name === undefined) {
    throw new ToolError('invalid_resource', 'readResource needs options.name to read a stream');
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of source) {
      throwIfAborted(signal);
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += bytes.byteLength;
      checkSize(options.name, total, maxBytes);
      chunks.push(bytes);
    }
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    throw new ToolError(
      'invalid_resource',
      `resource ${JSON.stringify(options.name)}: reading the stream failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return dataFrom(options.name, Buffer.concat(chunks), options);
}

function nameFromFile(file: string): string {
  const cleaned = file.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128);
  return cleaned === '' || cleaned === '__proto__' ? 'resource' : cleaned;
}
