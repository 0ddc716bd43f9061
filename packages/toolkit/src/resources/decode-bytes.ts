import { commonJs } from '@toolplane/toolmodel';

/** What {@link dataResource} reads bytes with: MIME sniffing, names and text encodings. */
interface Codecs {
  readonly detectEncoding: (data: Uint8Array) => string | null;
  readonly fileTypeFromBuffer: (data: Uint8Array) => Promise<{ mime: string } | undefined>;
  readonly iconv: typeof import('iconv-lite');
  readonly mimeFromName: (name: string) => string | false;
}

let codecs: Promise<Codecs> | undefined;

/**
 * Loads the codecs at their first use: a toolkit that never builds a resource from bytes (every
 * `toolplane tools list`) does not pay for loading file-type, chardet, iconv-lite and mime-types.
 */
function loadCodecs(): Promise<Codecs> {
  codecs ??= Promise.all([
    import('chardet'),
    import('file-type'),
    import('iconv-lite'),
    import('mime-types'),
  ]).then(([chardet, fileType, iconv, mime]) => ({
    detectEncoding: commonJs(chardet).detect,
    fileTypeFromBuffer: fileType.fileTypeFromBuffer,
    iconv: iconv.default,
    mimeFromName: commonJs(mime).lookup,
  }));
  return codecs;
}

const TEXTUAL_MIME =
  /^(?:text\/|application\/(?:json|xml|javascript|ecmascript|x-yaml|yaml|toml|sql|graphql|x-sh)\b)|\+(?:json|xml|yaml)\b/;
// Bytes a text file does not contain: C0 controls other than tab, newlines, form feed and escape.
// eslint-disable-next-line no-control-regex -- see above
const BINARY_BYTE = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/;
const SNIFF_BYTES = 8192;
// Source-code extensions that the MIME database maps to unrelated binary formats.
const TEXT_EXTENSIONS: Readonly<Record<string, string>> = {
  ts: 'text/x-typescript',
  mts: 'text/x-typescript',
  cts: 'text/x-typescript',
  tsx: 'text/x-typescript',
};

/**
 * The MIME type and contents of a resource built from bytes: the type sniffed from the content
 * (`file-type`), else taken from `filename`'s extension (`mime-types`), unless `mimeType` says
 * it; text decoded (UTF-8, UTF-16 with a BOM, or a legacy encoding `chardet` detects and
 * `iconv-lite` decodes), anything else base64.
 */
export async function decodeBytes(
  data: Uint8Array,
  options: { readonly mimeType?: string; readonly filename?: string },
): Promise<{ mimeType: string; text: string } | { mimeType: string; blob: string }> {
  const codec = await loadCodecs();
  const { fileTypeFromBuffer, mimeFromName } = codec;
  const ext = options.filename?.split('.').pop()?.toLowerCase();
  const fromName =
    options.filename === undefined
      ? undefined
      : ((ext === undefined ? undefined : TEXT_EXTENSIONS[ext]) ??
        (mimeFromName(options.filename) || undefined));
  // Unicode text marked by a byte-order mark or UTF-16's zero bytes is text whatever file-type
  // makes of it (it reads FF FE as MPEG audio).
  const unicode = options.mimeType === undefined ? decodeUnicode(codec, data) : undefined;
  const sniffed =
    options.mimeType !== undefined || unicode !== undefined
      ? undefined
      : (await fileTypeFromBuffer(data))?.mime;
  const declared = options.mimeType ?? sniffed ?? fromName;
  const textual = declared !== undefined && TEXTUAL_MIME.test(declared);
  // A MIME type guessed from the extension alone yields to content that is plainly text.
  const tryText =
    textual ||
    declared === undefined ||
    (options.mimeType === undefined && sniffed === undefined && looksLikeText(data));
  const text = unicode ?? (tryText ? decodeText(codec, data, textual) : undefined);
  if (text !== undefined) return { mimeType: textual ? declared : 'text/plain', text };
  return {
    mimeType: declared ?? 'application/octet-stream',
    blob: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
  };
}

function looksLikeText(data: Uint8Array): boolean {
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, SNIFF_BYTES));
  return !BINARY_BYTE.test(head.toString('latin1'));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes bytes that announce themselves as Unicode: a UTF-8 or UTF-16 byte-order mark, or, with
 * none, UTF-16's zero bytes (text in Latin scripts has a zero high byte in almost every code
 * unit). `undefined` when there is no such sign or the result holds control characters.
 */
function decodeUnicode({ iconv }: Codecs, data: Uint8Array): string | undefined {
  let text: string | undefined;
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
    try {
      text = utf8.decode(data);
    } catch {
      return undefined;
    }
  } else if (data[0] === 0xff && data[1] === 0xfe) {
    text = iconv.decode(Buffer.from(data.subarray(2)), 'utf-16le');
  } else if (data[0] === 0xfe && data[1] === 0xff) {
    text = iconv.decode(Buffer.from(data.subarray(2)), 'utf-16be');
  } else {
    const order = utf16ByZeros(data);
    if (order !== undefined) text = iconv.decode(Buffer.from(data), order);
  }
  return text === undefined || BINARY_BYTE.test(text) ? undefined : text;
}

function utf16ByZeros(data: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const units = Math.min(data.byteLength, SNIFF_BYTES) >> 1;
  if (units < 4 || data.byteLength % 2 !== 0) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < units; i++) {
    if (data[2 * i] === 0) evenZeros++;
    if (data[2 * i + 1] === 0) oddZeros++;
  }
  if (oddZeros > units * 0.4 && evenZeros < units * 0.05) return 'utf-16le';
  if (evenZeros > units * 0.4 && oddZeros < units * 0.05) return 'utf-16be';
  return undefined;
}

/** Decodes text bytes; `undefined` when they are not text and `force` is false. */
function decodeText(codec: Codecs, data: Uint8Array, force: boolean): string | undefined {
  const { detectEncoding, iconv } = codec;
  const unicode = decodeUnicode(codec, data);
  if (unicode !== undefined) return unicode;
  try {
    const text = utf8.decode(data);
    if (force || !BINARY_BYTE.test(text)) return text;
  } catch {
    // Not UTF-8: fall through to detection.
  }
  // Only legacy encodings are taken from chardet: Unicode without a mark was handled above, and
  // its UTF-32 guesses turn short binary runs into astral characters.
  const encoding = detectEncoding(data.subarray(0, 65536));
  if (encoding === null || /^UTF/i.test(encoding) || !iconv.encodingExists(encoding)) {
    return force ? Buffer.from(data).toString('latin1') : undefined;
  }
  const text = iconv.decode(Buffer.from(data), encoding);
  return force || !(BINARY_BYTE.test(text) || text.includes('\uFFFD')) ? text : undefined;
}
