import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { describe, expect, it } from 'vitest';
import { defineResourceTemplate } from './resource-templates.js';
import { textResource } from './resources.js';
import { createToolkit, type ToolkitEvent } from '../toolkit/toolkit.js';

const notes = new Map([
  ['a1', 'first note'],
  ['a2', 'second note'],
  ['b1', 'third note'],
]);

const note = defineResourceTemplate({
  uriTemplate: 'notes://{id}',
  name: 'note',
  description: 'A note by ID.',
  mimeType: 'text/markdown',
  read: ({ id }, { uri }) => notes.get(String(id)) ?? `no note at ${uri}`,
  complete: { id: (value) => [...notes.keys()].filter((id) => id.startsWith(value)) },
});

describe('defineResourceTemplate', () => {
  it('refuses a key a definition does not have: a misspelt mimeType was dropped', () => {
    const definition = {
      uriTemplate: 'x://{id}',
      name: 'x',
      mimetype: 'text/markdown',
      read: () => '',
    };
    expect(
      errorMessageOf(() => defineResourceTemplate(definition as never), 'invalid_resource'),
    ).toBe('defineResourceTemplate: unknown option "mimetype"; did you mean "mimeType"?');
  });

  it('refuses a bad name, an unparsable template, a missing read and a bad completer', () => {
    const base = { uriTemplate: 'x://{id}', name: 'x', read: () => '' };
    const bad = [
      { ...base, name: 'has space' },
      { ...base, uriTemplate: '' },
      { ...base, uriTemplate: 'x://{unclosed' },
      { ...base, read: undefined },
      { ...base, complete: { id: 'nope' } },
      { ...base, title: 7 },
    ];
    for (const definition of bad) {
      expect(() =>
        defineResourceTemplate(
          definition as unknown as Parameters<typeof defineResourceTemplate>[0],
        ),
      ).toThrow(expect.objectContaining({ code: 'invalid_resource' }) as Error);
    }
  });

  it('matches URIs of its template only', () => {
    expect(note.match('notes://a1')).toEqual({ id: 'a1' });
    expect(note.match('other://a1')).toBeUndefined();
    expect(note.mcp).toEqual({
      uriTemplate: 'notes://{id}',
      name: 'note',
      description: 'A note by ID.',
      mimeType: 'text/markdown',
    });
  });
});

describe('a toolkit with a builtin resource template', () => {
  const toolkit = createToolkit({
    resourceTemplates: [note],
    resources: [textResource('readme', 'hello', { uri: 'docs://readme' })],
  });

  it('lists it and reads URIs it matches, by bare URI and by uri#builtin', async () => {
    expect(toolkit.resourceTemplates()).toEqual([
      { namespace: 'builtin', name: 'note', template: note.mcp },
    ]);
    const read = await toolkit.readResource('notes://a2');
    expect(read).toMatchObject({ uri: 'notes://a2', name: 'note', text: 'second note' });
    expect(read.mimeType).toBe('text/markdown');
    expect((await toolkit.readResource('notes://b1#builtin')).text).toBe('third note');
    await expect(toolkit.readResource('nowhere://x')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('completes its variables, and prompt arguments from their schema', async () => {
    toolkit.addPrompt({
      name: 'pick',
      input: { type: 'object', properties: { color: { enum: ['red', 'green', 'Rose'] } } },
      template: '{{ color }}',
    });
    const target = {
      type: 'resource_template',
      namespace: 'builtin',
      uriTemplate: 'notes://{id}',
    } as const;
    expect(await toolkit.complete(target, { name: 'id', value: 'a' })).toEqual({
      values: ['a1', 'a2'],
      total: 2,
      hasMore: false,
    });
    expect(await toolkit.complete(target, { name: 'other', value: '' })).toEqual({ values: [] });
    expect(
      await toolkit.complete(
        { type: 'prompt', namespace: 'builtin', name: 'pick' },
        { name: 'color', value: 'r' },
      ),
    ).toEqual({ values: ['red', 'Rose'], total: 2, hasMore: false });
    await expect(
      toolkit.complete(
        { type: 'prompt', namespace: 'builtin', name: 'missing' },
        { name: 'x', value: '' },
      ),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      toolkit.complete({ ...target, uriTemplate: 'other://{id}' }, { name: 'id', value: '' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('announces a replaced resource as updated, a new one as a list change', () => {
    const events: ToolkitEvent[] = [];
    const stop = toolkit.onEvent((event) => events.push(event));
    toolkit.addResource(textResource('readme', 'hello again', { uri: 'docs://readme' }));
    toolkit.addResource(textResource('todo', 'nothing', { uri: 'docs://todo' }));
    stop();
    expect(events).toEqual([
      { type: 'resource_updated', namespace: 'builtin', uri: 'docs://readme' },
      { type: 'resource_list_changed', namespace: 'builtin' },
    ]);
  });

  it('removes a template by name', async () => {
    expect(toolkit.removeBuiltin('note')).toBe('resource_template');
    expect(toolkit.resourceTemplates()).toEqual([]);
    await expect(toolkit.readResource('notes://a1')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a template not made by defineResourceTemplate', () => {
    const plain = { uriTemplate: 'x://{id}', name: 'x', read: () => '' };
    expect(() => {
      toolkit.addResourceTemplate(
        plain as unknown as Parameters<typeof toolkit.addResourceTemplate>[0],
      );
    }).toThrow(expect.objectContaining({ code: 'invalid_resource' }) as Error);
  });
});
