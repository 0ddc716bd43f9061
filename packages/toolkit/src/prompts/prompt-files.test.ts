import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '@toolplane/toolmodel';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPromptFile, loadPrompts } from './prompt-files.js';

describe('loadPrompts and loadPromptFile', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolkit-prompts-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function folder(files: Record<string, string>): Promise<string> {
    const path = await mkdtemp(join(dir, 'case-'));
    for (const [name, text] of Object.entries(files)) await writeFile(join(path, name), text);
    return path;
  }

  it('loads the markdown files of a directory sorted by file name', async () => {
    const path = await folder({
      'b.md': '# The B prompt',
      'a.md': '# The A prompt',
      'C.MD': 'upper-case extension',
      'notes.txt': 'not a prompt',
    });
    await mkdir(join(path, 'sub.md'));
    const prompts = await loadPrompts(path);
    expect(prompts.map((p) => p.name)).toEqual(['C', 'a', 'b']);
    expect(prompts.map((p) => p.title)).toEqual([undefined, 'The A prompt', 'The B prompt']);
  });

  it('throws invalid_prompt naming the bad file', async () => {
    const path = await folder({ 'good.md': 'ok', 'bad.md': '---\nmodel: [1, 2]\n---\n' });
    try {
      await loadPrompts(path);
      expect.unreachable();
    } catch (error) {
      expect(ToolError.isInstance(error) && error.code).toBe('invalid_prompt');
      expect((error as Error).message).toContain('bad.md');
    }
  });

  it('throws invalid_prompt when two files declare the same name', async () => {
    const path = await folder({
      'one.md': '---\nname: same\n---\n',
      'two.md': '---\nname: same\n---\n',
    });
    expect(await rejectionCodeOf(loadPrompts(path))).toBe('invalid_prompt');
  });

  it('throws invalid_prompt for a file over the size bound', async () => {
    const path = await folder({ 'huge.md': 'x'.repeat(1024 * 1024 + 1) });
    expect(await rejectionCodeOf(loadPrompts(path))).toBe('invalid_prompt');
  });

  it('throws not_found for a missing directory and cancelled for an aborted signal', async () => {
    expect(await rejectionCodeOf(loadPrompts(join(dir, 'missing')))).toBe('not_found');
    const path = await folder({ 'a.md': 'a' });
    expect(await rejectionCodeOf(loadPrompts(path, { signal: AbortSignal.abort() }))).toBe(
      'cancelled',
    );
  });

  it('refuse an option they do not take, before reading anything', async () => {
    const path = await folder({ 'a.md': 'a' });
    const misspelt = { sigal: AbortSignal.abort() } as never;
    await expect(loadPrompts(path, misspelt)).rejects.toThrow(
      'loadPrompts: unknown option "sigal"; did you mean "signal"?',
    );
    expect(await rejectionCodeOf(loadPrompts(path, misspelt))).toBe('invalid_argument');
    expect(await rejectionCodeOf(loadPromptFile(join(path, 'a.md'), misspelt))).toBe(
      'invalid_argument',
    );
  });

  it('refuses a file that is not UTF-8, naming it, and drops a byte-order mark', async () => {
    const path = await mkdtemp(join(dir, 'case-'));
    const latin1 = join(path, 'latin1.md');
    // "café" as Latin-1: read as UTF-8 it would become "caf\uFFFD" without a word.
    await writeFile(latin1, Buffer.from('# caf\xe9', 'latin1'));
    const refused = await loadPromptFile(latin1).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ToolError.isInstance(refused) && refused.code).toBe('invalid_prompt');
    expect((refused as Error).message).toBe(`${latin1}: not UTF-8 text; save it as UTF-8`);
    expect(await rejectionCodeOf(loadPrompts(path))).toBe('invalid_prompt');

    const bom = join(path, 'bom.md');
    await writeFile(bom, Buffer.from('\ufeff---\nname: marked\n---\n# Café au lait', 'utf8'));
    expect(await loadPromptFile(bom)).toMatchObject({ name: 'marked', title: 'Café au lait' });
  });

  it('reads one file: not_found when it is missing, invalid_prompt when it is a directory', async () => {
    expect(await rejectionCodeOf(loadPromptFile(join(dir, 'missing.md')))).toBe('not_found');
    expect(await rejectionCodeOf(loadPromptFile(dir))).toBe('invalid_prompt');
    expect(await rejectionCodeOf(loadPromptFile(dir, { signal: AbortSignal.abort() }))).toBe(
      'cancelled',
    );
  });
});
