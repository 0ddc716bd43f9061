import { startMockServer, streamed, type MockModelServer } from './mock-server.js';

// The models the READMEs' first examples talk to, on 127.0.0.1, each in its provider's wire
// format. They all play one part, the one every example asks for ("Add 2 and 3"): sent no tool
// result yet, call the tool named like `…get-sum` with { a: 2, b: 3 }; sent its result, say
// "The tool said: <the result's text>", so an example's output shows that the call went
// through toolplane to the MCP server and back.

type Json = Record<string, unknown>;

const ARGS = { a: 2, b: 3 };

let answered = 0;

/** A new ID for each answer: clients (LangGraph's message list) merge messages by ID. */
function nextId(prefix: string): string {
  answered += 1;
  return `${prefix}${String(answered)}`;
}

/** What the model says once it has read the tool's result. */
function answer(result: string): string {
  return `The tool said: ${result}`;
}

function sumTool(names: readonly unknown[]): string {
  const name = names.find((n): n is string => typeof n === 'string' && /get[-_]sum$/.test(n));
  return name ?? `no get-sum tool among ${JSON.stringify(names)}`;
}

/** The text of a tool result as a provider carries it: a string, or a list of text parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
      )
      .join('');
  }
  return JSON.stringify(content);
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

function chatCompletion(body: Json): unknown {
  const result = list(body.messages).find((m) => m.role === 'tool');
  const name = sumTool(list(body.tools).map((t) => (t.function as Json | undefined)?.name));
  const message =
    result === undefined
      ? {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: 'call_sum',
              type: 'function',
              function: { name, arguments: JSON.stringify(ARGS) },
            },
          ],
        }
      : { role: 'assistant', content: answer(textOf(result.content)), refusal: null };
  const head = { id: nextId('chatcmpl-mock-'), created: 0, model: String(body.model) };
  const finish = result === undefined ? 'tool_calls' : 'stop';
  if (body.stream === true) {
    const { tool_calls: calls, ...delta } = message as Json & { tool_calls?: Json[] };
    const chunk = (choice: Json): Json => ({
      ...head,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, logprobs: null, ...choice }],
    });
    return streamed(
      [
        chunk({
          delta: { ...delta, ...(calls && { tool_calls: calls.map((c) => ({ index: 0, ...c })) }) },
          finish_reason: null,
        }),
        chunk({ delta: {}, finish_reason: finish }),
      ],
      { done: true },
    );
  }
  return {
    ...head,
    object: 'chat.completion',
    choices: [{ index: 0, logprobs: null, message, finish_reason: finish }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function responsesOutput(body: Json): Json {
  const result = list(body.input).find((item) => item.type === 'function_call_output');
  if (result !== undefined) {
    return {
      type: 'message',
      id: nextId('msg_mock_'),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: answer(textOf(result.output)), annotations: [] }],
    };
  }
  return {
    type: 'function_call',
    id: nextId('fc_mock_'),
    call_id: 'call_sum',
    name: sumTool(list(body.tools).map((t) => t.name)),
    arguments: JSON.stringify(ARGS),
    status: 'completed',
  };
}

function responses(body: Json): unknown {
  const output = responsesOutput(body);
  const head = {
    id: nextId('resp_mock_'),
    object: 'response',
    created_at: 0,
    model: String(body.model),
  };
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
  if (body.stream !== true) {
    return { ...head, status: 'completed', output: [output], usage };
  }
  const adding =
    output.type === 'message'
      ? [
          { ...output, status: 'in_progress', content: [] },
          {
            type: 'response.output_text.delta',
            item_id: output.id,
            output_index: 0,
            content_index: 0,
            delta: textOf(output.content),
          },
        ]
      : [
          { ...output, status: 'in_progress', arguments: '' },
          {
            type: 'response.function_call_arguments.delta',
            item_id: output.id,
            output_index: 0,
            delta: output.arguments,
          },
        ];
  const [item, delta] = adding;
  return streamed([
    { type: 'response.created', response: { ...head, status: 'in_progress' } },
    { type: 'response.output_item.added', output_index: 0, item },
    delta,
    { type: 'response.output_item.done', output_index: 0, item: output },
    { type: 'response.completed', response: { ...head, status: 'completed', usage } },
  ]);
}

/**
 * An OpenAI model: Chat Completions (`/v1/chat/completions`) and the Responses API
 * (`/v1/responses`), each plain or streamed, for `OPENAI_BASE_URL`.
 */
export function startOpenAIModel(): Promise<MockModelServer> {
  return startMockServer('/v1', (body, path) =>
    path.endsWith('/responses') ? responses(body) : chatCompletion(body),
  );
}

/** An Anthropic model: the Messages API (`/v1/messages`), for `ANTHROPIC_BASE_URL`. */
export function startAnthropicModel(): Promise<MockModelServer> {
  return startMockServer('', (body) => {
    const result = list(body.messages)
      .flatMap((m) => list(m.content))
      .find((block) => block.type === 'tool_result');
    const name = sumTool(list(body.tools).map((t) => t.name));
    return {
      id: nextId('msg_mock_'),
      type: 'message',
      role: 'assistant',
      model: String(body.model),
      content:
        result === undefined
          ? [{ type: 'tool_use', id: 'toolu_sum', name, input: ARGS }]
          : [{ type: 'text', text: answer(textOf(result.content)) }],
      stop_reason: result === undefined ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
  });
}

/** A Gemini model: `generateContent` of the Gemini API, for `GOOGLE_GEMINI_BASE_URL`. */
export function startGeminiModel(): Promise<MockModelServer> {
  return startMockServer('', (body) => {
    const result = list(body.contents)
      .flatMap((c) => list(c.parts))
      .map((part) => part.functionResponse as Json | undefined)
      .find((response) => response !== undefined);
    const declared = list(body.tools).flatMap((t) => list(t.functionDeclarations));
    const part =
      result === undefined
        ? { functionCall: { name: sumTool(declared.map((d) => d.name)), args: ARGS } }
        : { text: answer(textOf((result.response as Json | undefined)?.output)) };
    return {
      candidates: [{ index: 0, content: { role: 'model', parts: [part] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    };
  });
}
