// The JavaScript that sets up the API inside the sandbox, before the program runs. It is QuickJS
// code, kept as text: it receives the worker's two host functions, the tool list and the call
// bound, builds frozen `tools`, `search` and `console` objects around them, and returns
// `[finish, settle, drain]`: `finish` hands them to the program, runs it and reports its end as
// one tagged string; `settle` resolves the calls of a batch of answers; `drain` hands the worker
// the calls made since it last asked, as one packed string. Calls queue here rather than call
// into the host one by one: a host function call costs the worker's glue more than the queue
// and one drain per pump. Every value that leaves the sandbox is JSON text made here; the
// worker takes nothing else, and counts the calls again itself.
//
// Tags of `finish`'s answer: `V` + JSON (a value), `U` (no value), `T` + name, message and
// stack of an uncaught throw (each led by its length and a colon, so that no `toJSON` or
// prototype the program changed can garble them), `N` + text (a value that is not JSON), `Z` (a
// thrown `null`, which QuickJS throws itself when it is out of memory: the host tells which).

import type { HostCall } from './protocol.js';

/** File name the prelude is evaluated under, so that its frames can be told from the program's. */
export const PRELUDE_FILE = 'codemode-prelude.js';
/** File name the program is evaluated under; line numbers of its errors point into it. */
export const PROGRAM_FILE = 'program.js';

// The program is the body of an async function; the opening shares its first line, so line
// numbers of errors are the program's own (columns on line 1 are shifted by its length). The API
// reaches it as the parameters of an outer function, not only as globals: QuickJS lets
// `Object.defineProperty(globalThis, 'tools', ...)` replace even a non-configurable global, and
// a program may declare its own `search` or `console` in its body, which shadows them.
export const OPENING = '((tools, search, console) => async () => {';
export const CLOSING = '\n})';

/** Reads what the prelude's `pack` and `drain` make: strings each led by their length and a colon. */
export function unpack(text: string): string[] {
  const parts: string[] = [];
  let at = 0;
  while (at < text.length) {
    const colon = text.indexOf(':', at);
    if (colon < 0) break;
    const length = Number(text.slice(at, colon));
    parts.push(text.slice(colon + 1, colon + 1 + length));
    at = colon + 1 + length;
  }
  return parts;
}

/**
 * The calls in a packed text the prelude's `drain` made (head `op:call:target` and JSON text in
 * turn), in order; `undefined` when a head cannot be read.
 */
export function unpackCalls(packed: string): HostCall[] | undefined {
  const parts = unpack(packed);
  const calls: HostCall[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const head = parts[i] as string;
    const first = head.indexOf(':');
    const second = head.indexOf(':', first + 1);
    const op = head.slice(0, first);
    const call = Number(head.slice(first + 1, second));
    if ((op !== 'tool' && op !== 'search') || second < 0 || !Number.isInteger(call)) return;
    calls.push({ call, op, target: head.slice(second + 1), json: parts[i + 1] as string });
  }
  return calls;
}

/**
 * The most characters of an error's name, message or stack that leave the sandbox: the rest is
 * cut, with a note of how much, so a thrown 20-million-character string neither reaches the
 * caller whole (no other bound holds an error) nor spends the run's time in the surrogate check
 * of {@link PRELUDE}'s `pack`.
 */
export const MAX_ERROR_TEXT = 8_192;

/** The prelude's source: a function of the host functions, the tool list and the call bounds. */
export const PRELUDE = String.raw`(function (hostFull, hostLog, specJson, maxToolCalls, maxSearches) {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const freeze = Object.freeze;
  const create = Object.create;
  const define = Object.defineProperty;
  const isArray = Array.isArray;
  const ErrorType = Error;
  const TypeErrorType = TypeError;
  const toText = String;
  const apply = Reflect.apply;
  const sliceText = String.prototype.slice;

  // Text with every lone surrogate made U+FFFD, as the worker's copy out of the sandbox (UTF-8)
  // would make it anyway: packed texts are led by their length, which must be the same on both
  // sides of that copy. Only operators and indexing, which no program can redefine.
  const isHigh = (c) => c >= '\ud800' && c <= '\udbff';
  const isLow = (c) => c !== undefined && c >= '\udc00' && c <= '\udfff';
  const wellFormed = (text) => {
    let lone = false;
    for (let i = 0; i < text.length && !lone; i++) {
      if (isHigh(text[i]) && isLow(text[i + 1])) i++;
      else if (isHigh(text[i]) || isLow(text[i])) lone = true;
    }
    if (!lone) return text;
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (isHigh(c) && isLow(text[i + 1])) {
        out += c + text[i + 1];
        i++;
      } else out += isHigh(c) || isLow(c) ? '\ufffd' : c;
    }
    return out;
  };

  const pack = (...texts) => {
    let packed = '';
    for (let i = 0; i < texts.length; i++) {
      const text = wellFormed(texts[i]);
      packed += text.length + ':' + text;
    }
    return packed;
  };

  // Only the start of an error's texts leaves the sandbox: cut before anything walks them.
  const clip = (text) =>
    text.length > ${MAX_ERROR_TEXT}
      ? apply(sliceText, text, [0, ${MAX_ERROR_TEXT}]) + '… (' + (text.length - ${MAX_ERROR_TEXT}) + ' more characters)'
      : text;
  const describe = (thrown) => {
    try {
      if (thrown instanceof ErrorType) {
        return {
          name: clip(toText(thrown.name)),
          message: clip(toText(thrown.message)),
          stack: clip(toText(thrown.stack)),
        };
      }
      if (typeof thrown === 'string') return { name: '', message: clip(thrown), stack: '' };
      const json = stringify(thrown);
      return { name: '', message: clip(json === undefined ? toText(thrown) : json), stack: '' };
    } catch {
      return { name: '', message: 'a thrown value that cannot be described', stack: '' };
    }
  };

  // The promises of calls in flight, by call number; settled by settle, which the worker
  // calls with a batch of answers. A null-prototype object, so no setter the program puts on
  // Object.prototype sees them.
  const waiting = create(null);
  let next = 0;
  const PromiseType = Promise;

  // The calls not yet drained, head (op:call:target) and JSON text in turn; null-prototype for
  // the same reason as waiting. Past the call bound the host is told at once, which stops the
  // program through its interrupt handler, so that a loop of calls ends without a pump.
  let outbox = create(null);
  let queued = 0;
  let toolCalls = 0;
  let searches = 0;
  const drain = () => {
    let packed = '';
    for (let i = 0; i < queued; i++) packed += outbox[i].length + ':' + outbox[i];
    outbox = create(null);
    queued = 0;
    return packed;
  };

  const call = async (op, target, payload) => {
    const json = stringify(payload);
    const id = next++;
    const answer = new PromiseType((resolve, reject) => {
      waiting[id] = [resolve, reject];
    });
    if (op === 'tool' && ++toolCalls > maxToolCalls) hostFull('tool');
    if (op === 'search' && ++searches > maxSearches) hostFull('search');
    outbox[queued++] = op + ':' + id + ':' + target;
    outbox[queued++] = json === undefined ? '{}' : json;
    try {
      return await answer;
    } catch (failure) {
      const error = new ErrorType(failure.message);
      error.code = failure.code;
      throw error;
    }
  };

  const settle = (batchJson) => {
    const batch = parse(batchJson);
    for (let i = 0; i < batch.length; i++) {
      const entry = batch[i];
      const pending = waiting[entry[0]];
      if (pending === undefined) continue;
      delete waiting[entry[0]];
      pending[entry[1] === 1 ? 0 : 1](entry[2]);
    }
  };

  const tools = create(null);
  for (const { namespace, name, id: listed } of parse(specJson)) {
    const id = wellFormed(listed);
    const group = tools[namespace] ?? (tools[namespace] = create(null));
    const tool = async function (args) {
      const given = args === undefined ? {} : args;
      if (typeof given !== 'object' || given === null || isArray(given)) {
        throw new TypeErrorType('tools.' + namespace + '.' + name + ' takes one object of arguments');
      }
      return call('tool', id, given);
    };
    define(tool, 'name', { value: name });
    group[name] = freeze(tool);
  }
  for (const namespace of Object.keys(tools)) freeze(tools[namespace]);
  freeze(tools);

  const search = async function (query, options) {
    return call('search', wellFormed(toText(query)), options === undefined ? {} : options);
  };

  const format = (values) => {
    let line = '';
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      let text;
      try {
        if (typeof value === 'string') text = value;
        else if (value instanceof ErrorType) text = toText(value.name) + ': ' + toText(value.message);
        else {
          const json = stringify(value);
          text = json === undefined ? toText(value) : json;
        }
      } catch {
        text = '[value that cannot be printed]';
      }
      line += (i === 0 ? '' : ' ') + text;
    }
    return line;
  };
  const logger = (level) => function (...values) {
    hostLog(level, format(values));
  };
  const console = freeze({
    log: logger('log'),
    info: logger('log'),
    debug: logger('log'),
    warn: logger('warn'),
    error: logger('error'),
  });

  const fixed = { writable: false, configurable: false, enumerable: false };
  define(globalThis, 'tools', { ...fixed, value: tools });
  define(globalThis, 'search', { ...fixed, value: freeze(search) });
  define(globalThis, 'console', { ...fixed, value: console });

  return [async function finish(makeProgram) {
    let value;
    try {
      value = await makeProgram(tools, search, console)();
    } catch (thrown) {
      // Told apart on the host: QuickJS throws null itself when it is out of memory.
      if (thrown === null) return 'Z';
      const { name, message, stack } = describe(thrown);
      return 'T' + pack(name, message, stack);
    }
    if (value === undefined) return 'U';
    let json;
    try {
      json = stringify(value);
    } catch (error) {
      return 'N' + describe(error).message;
    }
    return json === undefined ? 'N' + 'a ' + typeof value + ' is not JSON' : 'V' + json;
  }, settle, drain];
})`;
