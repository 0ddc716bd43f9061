// Resource templates and static resources are named alike over MCP: each keeps its server's
// name (a label; a resource is found by its URI, a template by its URI template).
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createToolkit, defineResourceTemplate, textResource } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

describe('resources/templates/list', () => {
  it("keeps each template's own name, as resources/list keeps each resource's", async () => {
    const toolkit = createToolkit({
      resources: [textResource('notes', 'remember', { uri: 'memo://notes' })],
      resourceTemplates: [
        defineResourceTemplate({ uriTemplate: 'memo://day/{date}', name: 'day', read: () => '' }),
        defineResourceTemplate({ uriTemplate: 'memo://week/{n}', name: 'week', read: () => '' }),
      ],
    });
    // No namespace is transparent: tool and prompt names get their namespace prefix.
    const server = createMcpServer(toolkit, { transparent: 'none' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '0.0.0' });
    await client.connect(clientSide);
    try {
      const { resources } = await client.listResources();
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resources.map((r) => r.name)).toEqual(['notes']);
      expect(resourceTemplates.map((t) => [t.name, t.uriTemplate])).toEqual([
        ['day', 'memo://day/{date}'],
        ['week', 'memo://week/{n}'],
      ]);
    } finally {
      await client.close();
      await toolkit.close();
    }
  });
});
