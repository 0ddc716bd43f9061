import { dataResource, textResource } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { toModelMessages } from './prompt-messages.js';

const PNG = 'iVBORw0KGgo=';

describe('toModelMessages', () => {
  it('turns every MCP content block into a part the AI SDK accepts, by role', () => {
    const messages = toModelMessages(
      [
        { role: 'user', content: { type: 'text', text: 'hello' } },
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'assistant', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' } },
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: 'file:///a.txt', text: 'A' } },
        },
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AQID' } },
        },
        {
          role: 'assistant',
          content: { type: 'resource_link', uri: 'file:///c', name: 'c', description: 'see' },
        },
      ],
      [],
    );
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      { role: 'user', content: [{ type: 'image', image: PNG, mediaType: 'image/png' }] },
      { role: 'assistant', content: [{ type: 'file', data: PNG, mediaType: 'image/png' }] },
      { role: 'user', content: [{ type: 'file', data: 'AAAA', mediaType: 'audio/wav' }] },
      { role: 'user', content: [{ type: 'text', text: 'Resource file:///a.txt:\nA' }] },
      {
        role: 'user',
        content: [{ type: 'file', data: 'AQID', mediaType: 'application/octet-stream' }],
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Resource link file:///c (c: see)' }],
      },
    ]);
  });

  it('adds the call’s resources as one last user message', async () => {
    const note = textResource('note', 'the note');
    const blob = await dataResource('pic', new Uint8Array([1, 2, 3]), { mimeType: 'image/png' });
    const messages = toModelMessages(
      [{ role: 'user', content: { type: 'text', text: 'x' } }],
      [note, blob],
    );
    expect(messages).toHaveLength(2);
    expect(messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: `Resource ${note.uri}:\nthe note` },
        { type: 'file', data: blob.blob, mediaType: 'image/png', filename: 'pic' },
      ],
    });
  });
});
