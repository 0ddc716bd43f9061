import { startMockServer } from '@toolplane/test-support/mock-server';

/**
 * A stand-in for the model, on 127.0.0.1, speaking Chat Completions: asked a question, it calls
 * `everything__get-sum` and `everything__get-tiny-image`; given their results, it answers with
 * the sum it read and the number of images it was shown. It also checks that every call it made
 * was answered, by ID, before it answers.
 */
export async function startMockModel(): Promise<{ url: string; close: () => Promise<void> }> {
  return startMockServer('/v1', (sent) => {
    const body = sent as {
      messages: { role: string; content?: unknown; tool_call_id?: string }[];
      tools?: { function: { name: string } }[];
    };
    const toolResults = body.messages.filter((m) => m.role === 'tool');
    let message: Record<string, unknown>;
    if (toolResults.length === 0) {
      const names = (body.tools ?? []).map((tool) => tool.function.name);
      const wanted = ['everything__get-sum', 'everything__get-tiny-image'];
      const missing = wanted.filter((name) => !names.includes(name));
      message = {
        role: 'assistant',
        content: missing.length > 0 ? `missing tools: ${missing.join(', ')}` : null,
        refusal: null,
        ...(missing.length > 0
          ? {}
          : {
              tool_calls: [
                call('call_sum', wanted[0] as string, { a: 2, b: 40 }),
                call('call_image', wanted[1] as string, {}),
              ],
            }),
      };
    } else {
      const ids = toolResults.map((m) => m.tool_call_id).sort();
      const sum = String(toolResults.find((m) => m.tool_call_id === 'call_sum')?.content);
      const images = body.messages
        .filter((m) => m.role === 'user' && Array.isArray(m.content))
        .flatMap((m) => m.content as { type: string }[])
        .filter((part) => part.type === 'image_url').length;
      message = {
        role: 'assistant',
        refusal: null,
        content:
          ids.join() === 'call_image,call_sum'
            ? `The tool said: ${sum} I was shown ${String(images)} image(s).`
            : `unanswered calls: ${ids.join()}`,
      };
    }
    return {
      id: 'chatcmpl-mock',
      object: 'chat.completion',
      created: 0,
      model: 'mock',
      choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message }],
    };
  });
}

function call(id: string, name: string, args: unknown) {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}
