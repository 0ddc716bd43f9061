import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { optionKeys, refuseUnknownOptions, throwIfAborted, ToolError } from '@toolplane/toolmodel';
import { MAX_PROMPT_BYTES, parsePrompt, type LoadPromptsOptions, type Prompt } from './prompts.js';

// Strict: a file that is not UTF-8 is refused, not read with U+FFFD where its bytes were. A
// leading byte-order mark is dropped, as editors on Windows write one.
const utf8 = new TextDecoder('utf-8', { fatal: true });

const LOAD_KEYS = optionKeys<LoadPromptsOptions>({ signal: true });

/**
 * Reads one markdown prompt file: at most {@link MAX_PROMPT_BYTES}, UTF-8, parsed with
 * {@link parsePrompt} (its name defaults to the file's).
 *
 * @throws {ToolError} `invalid_argument` for an option it does not take; `not_found` when there
 * is no such file; `invalid_prompt` naming the file when it cannot be read, is too large, is not
 * UTF-8 or is a bad prompt; `cancelled` when `signal` aborts.
 */
export async function loadPromptFile(
  path: string,
  options: LoadPromptsOptions = {},
): Promise<Prompt> {
  refuseUnknownOptions(options, LOAD_KEYS, 'loadPromptFile');
  const { signal } = options;
  throwIfAborted(signal);
  let bytes: Buffer;
  try {
    // The size first, so a huge file is refused without being read.
    const size = (await stat(path)).size;
    if (size > MAX_PROMPT_BYTES) throw tooLarge(path, size);
    bytes = await readFile(path, { signal });
  } catch (error) {
    throwIfAborted(signal);
    if (ToolError.isInstance(error)) throw error;
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ToolError(
      missing ? 'not_found' : 'invalid_prompt',
      `cannot read ${path}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  // It may have grown since.
  if (bytes.length > MAX_PROMPT_BYTES) throw tooLarge(path, bytes.length);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (error) {
    throw new ToolError('invalid_prompt', `${path}: not UTF-8 text; save it as UTF-8`, {
      cause: error,
    });
  }
  return parsePrompt(text, { filename: path });
}

function tooLarge(path: string, size: number): ToolError {
  return new ToolError(
    'invalid_prompt',
    `${path}: file is ${size} bytes (at most ${MAX_PROMPT_BYTES})`,
  );
}

/**
 * Loads every `*.md` file of a directory (not its subdirectories) as a prompt, in file-name
 * order, so the result is the same on every machine.
 *
 * @throws {ToolError} `invalid_argument` for an option it does not take; `invalid_prompt` naming
 * the file for a bad, oversized or duplicate prompt; `not_found` when the directory does not
 * exist; `cancelled` when `signal` aborts.
 */
export async function loadPrompts(
  dir: string,
  options: LoadPromptsOptions = {},
): Promise<Prompt[]> {
  // A misspelt `signal` would leave the load with nothing to cancel it.
  refuseUnknownOptions(options, LOAD_KEYS, 'loadPrompts');
  const { signal } = options;
  throwIfAborted(signal);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ToolError(
      missing ? 'not_found' : 'invalid_prompt',
      `cannot read the prompt directory ${JSON.stringify(dir)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const files = entries
    .filter((entry) => entry.isFile() && extname(entry.name).toLowerCase() === '.md')
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  const prompts: Prompt[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    throwIfAborted(signal);
    const path = join(dir, file);
    const prompt = await loadPromptFile(path, options);
    const previous = seen.get(prompt.name);
    if (previous !== undefined) {
      throw new ToolError(
        'invalid_prompt',
        `${path}: prompt name ${JSON.stringify(prompt.name)} is already used by ${previous}`,
      );
    }
    seen.set(prompt.name, path);
    prompts.push(prompt);
  }
  return prompts;
}
