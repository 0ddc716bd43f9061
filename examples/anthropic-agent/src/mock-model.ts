import { startMockServer } from '@toolplane/test-support/mock-server';

interface Block {
  type: string;
  text?: string;
  tool_use_id?: string;
  is_error?: boolean;
  content?: Block[];
}

/**
 * A stand-in for the model, on 127.0.0.1, speaking the Messages API: asked a question, it uses
 * `everything__get-sum` and `everything__get-tiny-image`; given their `tool_result` blocks, it
 * answers with the sum it read and the image blocks it was shown. It checks that every tool use
 * was answered, by ID, before it answers.
 */
export async function startMockModel(): Promise<{ url: string; close: () => Promise<void> }> {
  return startMockServer('', (sent) => {
    const body = sent as {
      messages: { role: string; content: string | Block[] }[];
      tools?: { name: string }[];
    };
    const last = body.messages.at(-1)?.content;
    const results = Array.isArray(last) ? last.filter((b) => b.type === 'tool_result') : [];
    const wanted = ['everything__get-sum', 'everything__get-tiny-image'];
    const names = (body.tools ?? []).map((tool) => tool.name);
    let content: unknown[];
    let stop = 'end_turn';
    if (results.length === 0 && wanted.every((name) => names.includes(name))) {
      content = [
        { type: 'text', text: 'Let me use the tools.' },
        { type: 'tool_use', id: 'toolu_sum', name: wanted[0], input: { a: 2, b: 40 } },
        { type: 'tool_use', id: 'toolu_image', name: wanted[1], input: {} },
      ];
      stop = 'tool_use';
    } else {
      const ids = results.map((r) => r.tool_use_id).sort();
      const sum = results.find((r) => r.tool_use_id === 'toolu_sum')?.content?.[0]?.text;
      const images = results.flatMap((r) => r.content ?? []).filter((b) => b.type === 'image');
      content = [
        {
          type: 'text',
          text:
            ids.join() === 'toolu_image,toolu_sum'
              ? `The tool said: ${String(sum)} I was shown ${String(images.length)} image(s).`
              : `unanswered or missing: ${ids.join()} / tools ${names.join()}`,
        },
      ];
    }
    return {
      id: 'msg_mock',
      type: 'message',
      role: 'assistant',
      model: 'mock',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
  });
}
