import type { ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { describe, expectTypeOf, it } from 'vitest';
import type { ToolSource } from './index.js';
import { toLangChainTools, type ToolplaneTool } from './index.js';

declare const source: ToolSource;

describe('toLangChainTools types', () => {
  it('gives structured tools that answer a tool call with a ToolMessage', async () => {
    const tools = await toLangChainTools(source);
    expectTypeOf(tools).toEqualTypeOf<ToolplaneTool[]>();
    expectTypeOf(tools).toExtend<StructuredToolInterface[]>();
    const [tool] = tools;
    const call = { id: 'c', name: 'x', args: {}, type: 'tool_call' as const };
    expectTypeOf(tool!.invoke(call)).resolves.toEqualTypeOf<ToolMessage>();
  });
});
