// A stdio MCP server with `count` generated tools (argv[2], default 200), for the toolkit bench.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const count = Number(process.argv[2] ?? 200);
const server = new McpServer({ name: 'many-tools', version: '1.0.0' });
for (let i = 0; i < count; i++) {
  const name = `tool-${String(i).padStart(4, '0')}`;
  server.registerTool(
    name,
    {
      description: `Generated tool number ${i}: echoes its text back.`,
      inputSchema: { text: z.string() },
    },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
}
await server.connect(new StdioServerTransport());
