import type { CodeModeTool } from '@toolplane/codemode';

// A model that needs no network: it answers each turn from a script, the way a real model
// would with code mode's three tools. It searches, reads one declaration, writes one program,
// and answers from the program's result.

/** One message of the conversation, in the shape every chat API shares. */
export type Message =
  | { readonly role: 'user' | 'assistant'; readonly text: string }
  | {
      readonly role: 'tool_call';
      readonly tool: CodeModeTool['name'];
      readonly args: Record<string, unknown>;
    }
  | { readonly role: 'tool_result'; readonly text: string };

/** What the model does next: call a tool, or answer. */
export type Turn =
  | {
      readonly type: 'tool_call';
      readonly tool: CodeModeTool['name'];
      readonly args: Record<string, unknown>;
    }
  | { readonly type: 'answer'; readonly text: string };

/** The program the scripted model writes once it has read the filesystem tools' declarations. */
export function taskProgram(dir: string): string {
  return `
const root = ${JSON.stringify(dir)};
const { content: listing } = await tools.filesystem.list_directory({ path: root + '/sales' });
const files = listing.split('\\n').filter((line) => line.startsWith('[FILE]')).map((line) => line.slice(7).trim());
const summary = {};
for (const file of files) {
  const { content } = await tools.filesystem.read_text_file({ path: root + '/sales/' + file });
  const orders = JSON.parse(content);
  const paid = orders.filter((order) => order.status === 'paid');
  summary[file.replace('.json', '')] = {
    orders: paid.length,
    total: Math.round(paid.reduce((sum, order) => sum + order.amount, 0) * 100) / 100,
  };
}
await tools.filesystem.write_file({ path: root + '/summary.json', content: JSON.stringify(summary, null, 2) });
console.log('regions read:', files.length);
return summary;
`;
}

/** The scripted model: its next turn, from the conversation so far. */
export function scriptedModel(dir: string): (messages: readonly Message[]) => Turn {
  return (messages) => {
    const calls = messages.filter((message) => message.role === 'tool_call').length;
    const last = messages.at(-1);
    switch (calls) {
      case 0:
        return { type: 'tool_call', tool: 'search_tools', args: { query: 'read a text file' } };
      case 1:
        return {
          type: 'tool_call',
          tool: 'describe_tool',
          args: { id: 'filesystem:read_text_file' },
        };
      case 2:
        return { type: 'tool_call', tool: 'run_code', args: { code: taskProgram(dir) } };
      default: {
        const result = last?.role === 'tool_result' ? last.text : '';
        const summary = JSON.parse(result.split('\n')[0] ?? '{}') as Record<
          string,
          { total: number }
        >;
        const best = Object.entries(summary).sort((a, b) => b[1].total - a[1].total)[0];
        return {
          type: 'answer',
          text: `Wrote summary.json for ${String(Object.keys(summary).length)} regions; the best is ${best?.[0] ?? 'none'} with ${String(best?.[1].total ?? 0)}.`,
        };
      }
    }
  };
}
