import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import {
  fromError,
  fromRun,
  toLangChainResult,
  toMessageContent,
  type ToolplaneArtifact,
} from './results.js';

const artifact = (fields: Omit<ToolplaneArtifact, 'toolId'>): ToolplaneArtifact => ({
  toolId: 'ns:tool',
  ...fields,
});

describe('toMessageContent', () => {
  it("gives a local tool's object as its JSON, and an MCP result's structured content as JSON, not its text", () => {
    const value = { sum: 5, note: 'x'.repeat(40) };
    expect(toMessageContent(toLangChainResult('ns:add', { structured: value } as never))).toBe(
      JSON.stringify(value),
    );
    expect(
      toMessageContent(toLangChainResult('ns:add', { structured: value } as never), {
        maxOutputChars: 10,
      }),
    ).toBe(
      `${JSON.stringify(value).slice(0, 10)}\n[toolplane: ${String(JSON.stringify(value).length - 10)} of ${String(JSON.stringify(value).length)} characters left out]`,
    );
    const mcp = toLangChainResult('ns:add', {
      structured: value,
      mcpResult: { content: [{ type: 'text', text: 'five' }], structuredContent: value },
    } as never);
    expect(toMessageContent(mcp)).toBe(JSON.stringify(value));
  });

  it('tells the model resource links and embedded resources as text, binary media as notes', () => {
    const result = artifact({
      content: [
        { type: 'text', text: 'found two files' },
        {
          type: 'resource_link',
          uri: 'file:///a.txt',
          name: 'a.txt',
          description: 'the first file',
        },
        { type: 'resource', resource: { uri: 'file:///b.txt', text: 'bee' } },
        {
          type: 'resource',
          resource: { uri: 'file:///c.bin', blob: 'AAAA', mimeType: 'application/zip' },
        },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      ],
    });
    expect(toMessageContent(result)).toBe(
      [
        'found two files',
        'resource file:///a.txt (a.txt): the first file',
        'resource file:///b.txt:\nbee',
        '[toolplane: resource file:///c.bin (application/zip) in the artifact]',
        '[toolplane: audio (audio/wav) in the artifact]',
      ].join('\n'),
    );
    expect(toMessageContent(result, { media: 'content' })).toEqual([
      { type: 'text', text: 'found two files' },
      { type: 'text', text: 'resource file:///a.txt (a.txt): the first file' },
      { type: 'text', text: 'resource file:///b.txt:\nbee' },
      { type: 'file', mimeType: 'application/zip', data: 'AAAA' },
      { type: 'audio', mimeType: 'audio/wav', data: 'UklGRg==' },
    ]);
  });

  it('gives structured content as JSON unless media comes with it, and cuts it to the budget', () => {
    const structured = { rows: ['x'.repeat(50)] };
    expect(toMessageContent(artifact({ content: [], structuredContent: structured }))).toBe(
      JSON.stringify(structured),
    );
    const cut = toMessageContent(artifact({ content: [], structuredContent: structured }), {
      maxOutputChars: 20,
    });
    expect(cut).toBe(
      `${JSON.stringify(structured).slice(0, 20)}\n[toolplane: ${String(JSON.stringify(structured).length - 20)} of ${String(JSON.stringify(structured).length)} characters left out]`,
    );
    const withImage = artifact({
      content: [
        { type: 'text', text: 'chart' },
        { type: 'image', data: 'iVBOR', mimeType: 'image/png' },
      ],
      structuredContent: structured,
    });
    expect(toMessageContent(withImage)).toBe(
      'chart\n[toolplane: image (image/png) in the artifact]',
    );
  });

  it('tells a failure by its text, its structured content, or a plain note', () => {
    expect(
      toMessageContent(artifact({ content: [], structuredContent: { why: 'x' }, isError: true })),
    ).toBe('{"why":"x"}');
    expect(toMessageContent(artifact({ content: [], isError: true }))).toBe('"the tool failed"');
    const failed = fromError('ns:tool', new ToolError('timeout', 'took longer than 5000 ms'));
    expect(failed).toMatchObject({ isError: true, code: 'timeout' });
    expect(toMessageContent(failed)).toBe('timeout: took longer than 5000 ms');
  });

  it("keeps an upstream's own error result, found in the error's cause chain", () => {
    const upstream = { content: [{ type: 'text', text: 'no such repo' }], isError: true };
    const error = new ToolError('execution', 'the tool failed', {
      cause: new Error('wrapped', { cause: upstream }),
    });
    expect(fromError('gh:get_repo', error)).toEqual({
      toolId: 'gh:get_repo',
      content: [{ type: 'text', text: 'no such repo' }],
      isError: true,
      code: 'execution',
    });
  });
});

describe('fromRun', () => {
  it('is kept, deprecated, as the old name of toLangChainResult', () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    expect(fromRun).toBe(toLangChainResult);
  });
});
