// A stdio MCP server with `count` generated tools (argv[2], default 200), for the toolkit bench.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const count = Number(process.argv[2] ?? 200);
const server = new McpServer({ name: 'many-tools', version: '1.0.0' });
for (let i = 0; i < count; i++) {
  const name = `tool-${String(i).padStart(4, '0')}`;
  server.registerTool(
    name,
    {
      description: `Generated tool number ${i}: echoes its text back.`,
      inputSchema: z.object({ text: z.string() }),
    },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
}
await server.connect(new StdioServerTransport());
