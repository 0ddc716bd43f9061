import {
  ProtocolErrorCode,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/server';
import { inexactIntegerMessage, inexactIntegers, pointerToken } from '@toolplane/toolmodel';
import { quoted } from '@toolplane/toolmodel/text';
import { isJsonRpcMessage } from './jsonrpc.js';

/**
 * Tells, for each message parsed from `text` (a POST's body, a stdio line), why a request or a
 * response among them is refused: its params (or result) hold an integer `text` writes that
 * `JSON.parse` read as another number (`{"id": 9007199254740993}` as 9007199254740992), which
 * the tool would act on instead. `undefined` when `text` holds no such integer: one
 * regular-expression test on a normal message, no walk of what was parsed.
 *
 * A request is refused to the client (JSON-RPC -32602, under its ID). A response (a client's
 * answer to an elicitation or a sampling request) cannot be answered, and dropping it would
 * leave the request it ends waiting: the transport hands the server an error response in its
 * place, so what asked fails with this reason instead of being given another number. A
 * notification is passed on as it is. A request's ID past 2^53 - 1 is refused before this, as
 * an ID.
 */
export function inexactParams(
  text: string,
): ((message: unknown) => string | undefined) | undefined {
  const tokens = inexactIntegers(text);
  if (tokens.length === 0) return undefined;
  const written = new Map<number, string>();
  for (const token of tokens) if (!written.has(Number(token))) written.set(Number(token), token);
  return (message) => {
    // Only a well-formed request or answer: anything else is refused as it is (-32600, ID
    // null) where it is read, as if it held no such integer.
    if (!isJsonRpcMessage(message) || !('id' in message)) return undefined;
    if (!('method' in message)) {
      if (!('result' in message)) return undefined;
      const answered = findNumber(message.result, written);
      if (answered === undefined) return undefined;
      return inexactIntegerMessage(written.get(answered[0]) as string, {
        where: `in the client's answer at ${pointer(answered[1])}`,
        outcome: 'the answer was refused; it must send such a value as a string',
      });
    }
    const found = findNumber(message.params, written);
    if (found === undefined) return undefined;
    const [value, path] = found;
    const token = written.get(value) as string;
    if (message.method === 'tools/call' && path[0] === 'arguments') {
      return inexactIntegerMessage(token, {
        where: `in the arguments at ${pointer(path.slice(1))}`,
      });
    }
    return inexactIntegerMessage(token, {
      where: `in the params at ${pointer(path)}`,
      outcome: `the ${message.method} request was refused; send such a value as a string`,
    });
  };
}

/**
 * The error response the server is handed in place of a client's `answer` that
 * {@link inexactParams} refused (`why`), under the answer's ID: the request it answers fails
 * with that reason.
 */
export function inexactAnswer(answer: JSONRPCMessage, why: string): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id: (answer as { id: RequestId }).id,
    error: { code: ProtocolErrorCode.InvalidParams, message: why },
  };
}

/** `path` as a quoted JSON Pointer, cut: a deep path must not make the error as long as the body. */
function pointer(path: readonly (string | number)[]): string {
  return quoted(path.map((key) => `/${pointerToken(key)}`).join(''));
}

/**
 * The first number in `value` that is one of `numbers`, and its path. Walked with a stack of its
 * own, each step keeping only its key and its parent's step (the path is made for a find alone):
 * a hostile message may nest deeper than the call stack goes.
 */
function findNumber(
  value: unknown,
  numbers: ReadonlyMap<number, string>,
): [number, (string | number)[]] | undefined {
  const steps: { readonly parent: number; readonly key: string | number }[] = [];
  const stack: [unknown, number][] = [[value, -1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, at] = next;
    if (typeof item === 'number') {
      if (numbers.has(item)) return [item, pathTo(steps, at)];
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    const entries: [string | number, unknown][] = Array.isArray(item)
      ? item.map((element, index): [number, unknown] => [index, element])
      : Object.entries(item);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string | number, unknown];
      steps.push({ parent: at, key });
      stack.push([child, steps.length - 1]);
    }
  }
  return undefined;
}

function pathTo(
  steps: readonly { readonly parent: number; readonly key: string | number }[],
  at: number,
): (string | number)[] {
  const path: (string | number)[] = [];
  for (let step = at; step >= 0; step = (steps[step] as { parent: number }).parent) {
    path.push((steps[step] as { key: string | number }).key);
  }
  return path.reverse();
}
