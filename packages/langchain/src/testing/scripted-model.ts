import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  type BaseMessage,
  type ToolCall,
} from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { Runnable, RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';

/** What a tool-calling provider receives of a bound tool: OpenAI's function tool format. */
export type OfferedTool = ReturnType<typeof convertToOpenAITool>;

/** One turn the model was asked for: the messages it read and the tools it was offered. */
export interface ModelTurn {
  readonly messages: readonly BaseMessage[];
  readonly tools: readonly OfferedTool[];
}

interface ScriptedCallOptions extends BaseChatModelCallOptions {
  readonly offered?: readonly OfferedTool[];
}

/** A scripted turn: tool calls to make (ids given), or final text. */
export type Turn =
  { readonly toolCalls: readonly Omit<ToolCall, 'type'>[] } | { readonly text: string };

/**
 * A tool-calling chat model for tests: `bindTools` converts tools the way provider integrations
 * do (`convertToOpenAITool`), and each turn answers the next scripted message, recording what the
 * model read.
 */
export class ScriptedChatModel extends BaseChatModel<ScriptedCallOptions> {
  readonly turns: ModelTurn[] = [];
  readonly #script: readonly Turn[];

  constructor(script: readonly Turn[]) {
    super({});
    this.#script = script;
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(
    tools: BindToolsInput[],
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ScriptedCallOptions> {
    const offered = tools.map((tool) => convertToOpenAITool(tool as StructuredToolInterface));
    return this.withConfig({ offered });
  }

  async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    await Promise.resolve();
    this.turns.push({ messages: [...messages], tools: options.offered ?? [] });
    const turn = this.#script[this.turns.length - 1];
    if (turn === undefined) throw new Error(`the script has no turn ${String(this.turns.length)}`);
    const message =
      'text' in turn
        ? new AIMessage(turn.text)
        : new AIMessage({
            content: '',
            tool_calls: turn.toolCalls.map((call) => ({ ...call, type: 'tool_call' as const })),
          });
    return { generations: [{ message, text: 'text' in turn ? turn.text : '' }] };
  }
}

/**
 * The plain LangChain tool loop: the bound model answers, each of its tool calls is invoked on
 * the tool it names (with the run's config), the ToolMessages go back, until it answers in text.
 */
export async function runToolLoop(
  model: ScriptedChatModel,
  tools: readonly StructuredToolInterface[],
  prompt: string,
  config: RunnableConfig = {},
): Promise<BaseMessage[]> {
  const bound = model.bindTools([...tools]);
  const messages: BaseMessage[] = [new HumanMessage(prompt)];
  for (let step = 0; step < 10; step++) {
    const reply = await bound.invoke(messages, config);
    messages.push(reply);
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) return messages;
    for (const call of calls) {
      const tool = tools.find((candidate) => candidate.name === call.name);
      if (tool === undefined) throw new Error(`the model called an unknown tool ${call.name}`);
      messages.push((await tool.invoke({ ...call, type: 'tool_call' }, config)) as BaseMessage);
    }
  }
  throw new Error('the loop did not end in 10 steps');
}
