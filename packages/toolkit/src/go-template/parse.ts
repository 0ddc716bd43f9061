import { ToolError } from '@toolplane/toolmodel';
import { FUNCTION_NAMES } from './functions.js';

// A parser for Go's text/template language, as far as prompt files use it: text and actions with
// trim markers and comments; pipelines of fields, variables, literals, parentheses and function
// calls; variable declaration and assignment; if / else if / else, range (with `$i, $v :=`,
// `else`, `break`, `continue`), with / else with / else. `define`, `template` and `block` name
// other templates, which a prompt file has none of, so they are refused when the file is loaded,
// as is any function outside the table in ./functions.ts: a form we cannot render never renders
// as something else.

/** Where a node stands in the source, for messages: 1-based line and column. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** One operand of a command. */
export type Operand =
  | { readonly kind: 'dot'; readonly at: Position }
  | { readonly kind: 'field'; readonly chain: readonly string[]; readonly at: Position }
  | {
      readonly kind: 'variable';
      readonly name: string;
      readonly chain: readonly string[];
      readonly at: Position;
    }
  | {
      readonly kind: 'literal';
      readonly value: string | number | bigint | boolean | null;
      readonly at: Position;
    }
  | { readonly kind: 'function'; readonly name: string; readonly at: Position }
  | {
      readonly kind: 'pipe';
      readonly pipe: Pipeline;
      readonly chain: readonly string[];
      readonly at: Position;
    };

/** Operands; a function call when the first one is a function. */
export interface Command {
  readonly args: readonly Operand[];
  readonly at: Position;
}

/** `$a, $b := cmd | cmd`, or without the declaration. */
export interface Pipeline {
  readonly variables: readonly string[];
  /** `=` assigns existing variables; `:=` declares new ones. */
  readonly assign: boolean;
  readonly commands: readonly Command[];
  readonly at: Position;
}

/** `{{if}}`, `{{with}}` or `{{range}}` with its body and its `{{else}}` part. */
export interface ControlNode {
  readonly kind: 'if' | 'with' | 'range';
  readonly pipe: Pipeline;
  readonly body: readonly Node[];
  readonly otherwise: readonly Node[] | undefined;
  readonly at: Position;
}

/** The tree a template parses to. */
export type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'action'; readonly pipe: Pipeline }
  | ControlNode
  | { readonly kind: 'break' | 'continue'; readonly at: Position };

type Token =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'action';
      readonly body: string;
      readonly at: Position;
      readonly bodyAt: number;
    };

/** How deeply controls and parentheses may nest. */
const MAX_DEPTH = 100;
const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'break', 'continue']);
const OTHER_TEMPLATES = new Set(['define', 'template', 'block']);

/**
 * Whether `source` is written in Go's template language rather than Liquid: some action starts
 * the way only Go's do (a field or variable, a keyword, a parenthesis, a comment, or a function of
 * the table called with arguments). Liquid's own tags use `{% %}`, so the two rarely meet.
 */
export function looksLikeGoTemplate(source: string): boolean {
  const action = /\{\{-?\s*([^}]*)/g;
  for (let match = action.exec(source); match !== null; match = action.exec(source)) {
    const raw = match[1] ?? '';
    if (raw.includes('`') || raw.startsWith('/*')) return true;
    // Outside string literals: a field or variable operand (Liquid writes `a.b`, never `.b`), a
    // leading keyword or parenthesis, a pipeline stage that takes arguments without Liquid's colon,
    // or a function of the table called with arguments.
    const body = raw.replace(/"(?:[^"\\]|\\.)*"?|'[^']*'?/g, '""');
    if (/(?:^|[\s(|,])(?:\.(?!\d)|\$)/.test(body) || body.startsWith('(')) return true;
    if (/\|\s*[A-Za-z_]\w*\s+[^\s:|]/.test(body.replace(/\|\s*[A-Za-z_]\w*\s*:/g, ''))) return true;
    const word = /^([A-Za-z_]\w*)(\s+[^\s|:])?/.exec(body);
    if (word === null) continue;
    const name = word[1] ?? '';
    if (KEYWORDS.has(name) || OTHER_TEMPLATES.has(name)) return true;
    if (word[2] !== undefined && FUNCTION_NAMES.has(name)) return true;
  }
  return false;
}

/**
 * Parses Go-template `source`.
 *
 * @throws {ToolError} `invalid_prompt` naming the line and column of the first form that does not
 * parse or that toolplane does not render (another template, an unknown function).
 */
export function parseGoTemplate(source: string, where: string): readonly Node[] {
  return new Parser(source, where).parse();
}

class Parser {
  private readonly tokens: Token[];
  private index = 0;
  /** How many `range` bodies enclose the node being parsed: `break` and `continue` need one. */
  private rangeDepth = 0;
  /** How many controls and parentheses enclose it: bounded, so no input can exhaust the stack. */
  depth = 0;
  /** The variables in scope, innermost last; `$` is the root data. */
  private readonly scope: string[] = ['$'];

  constructor(
    private readonly source: string,
    private readonly where: string,
  ) {
    this.tokens = this.scan();
  }

  parse(): readonly Node[] {
    const { nodes, end } = this.list();
    if (end !== undefined) throw this.error(end.at, `unexpected {{${end.word}}}`);
    return nodes;
  }

  // ---- scanning text and actions -------------------------------------------------------------

  private scan(): Token[] {
    const tokens: Token[] = [];
    const source = this.source;
    let cursor = 0;
    let trimNext = false;
    while (cursor <= source.length) {
      const open = source.indexOf('{{', cursor);
      let text = source.slice(cursor, open === -1 ? source.length : open);
      if (trimNext) text = text.replace(/^\s+/, '');
      if (open === -1) {
        if (text !== '') tokens.push({ type: 'text', text });
        break;
      }
      const trimLeft = /^\{\{-[ \t\r\n]/.test(source.slice(open, open + 4));
      if (trimLeft) text = text.replace(/\s+$/, '');
      if (text !== '') tokens.push({ type: 'text', text });
      const bodyStart = open + (trimLeft ? 3 : 2);
      const close = this.findClose(bodyStart, open);
      const trimRight =
        /[ \t\r\n]-$/.test(source.slice(bodyStart, close)) && close - 2 >= bodyStart;
      const bodyEnd = trimRight ? close - 1 : close;
      const body = source.slice(bodyStart, bodyEnd);
      const trimmed = body.trim();
      if (!(trimmed.startsWith('/*') && trimmed.endsWith('*/'))) {
        tokens.push({ type: 'action', body, at: this.position(open), bodyAt: bodyStart });
      } else if (/\*\/[\s\S]*\*\//.test(trimmed.slice(0, -2)) || trimmed.length < 4) {
        throw this.error(this.position(open), 'comment ends before closing delimiter');
      }
      trimNext = trimRight;
      cursor = close + 2;
    }
    return tokens;
  }

  /** The index of the `}}` closing the action opened at `open`, skipping quoted strings. */
  private findClose(from: number, open: number): number {
    const source = this.source;
    let quote: string | undefined;
    for (let i = from; i < source.length; i++) {
      const char = source[i];
      if (quote !== undefined) {
        if (char === '\\' && quote !== '`') i++;
        else if (char === quote) quote = undefined;
        else if (char === '\n' && quote !== '`') break;
      } else if (char === '"' || char === '`' || char === "'") quote = char;
      else if (char === '/' && source[i + 1] === '*') {
        const end = source.indexOf('*/', i + 2);
        if (end === -1) break;
        i = end + 1;
      } else if (char === '}' && source[i + 1] === '}') return i;
    }
    throw this.error(this.position(open), 'unclosed action');
  }

  position(offset: number): Position {
    let line = 1;
    let lineStart = 0;
    for (
      let i = this.source.indexOf('\n');
      i !== -1 && i < offset;
      i = this.source.indexOf('\n', i + 1)
    ) {
      line++;
      lineStart = i + 1;
    }
    return { line, column: offset - lineStart + 1 };
  }

  error(at: Position, message: string): ToolError {
    return new ToolError('invalid_prompt', `${this.where}:${at.line}:${at.column}: ${message}`);
  }

  // ---- the tree ----------------------------------------------------------------------------------

  /** Nodes up to an `{{else …}}` or `{{end}}` (returned as `end`), or to the end of the source. */
  private list(): {
    nodes: Node[];
    end: { word: string; rest: Lexer; at: Position } | undefined;
  } {
    const nodes: Node[] = [];
    while (this.index < this.tokens.length) {
      const token = this.tokens[this.index++];
      if (token === undefined) break;
      if (token.type === 'text') {
        nodes.push({ kind: 'text', text: token.text });
        continue;
      }
      const lexer = new Lexer(token.body, token.bodyAt, this);
      const word = lexer.peekWord();
      if (word === 'end' || word === 'else') {
        lexer.next();
        return { nodes, end: { word, rest: lexer, at: token.at } };
      }
      if (word !== undefined && OTHER_TEMPLATES.has(word)) {
        throw this.error(
          token.at,
          `{{${word}}} is not supported in prompt templates (one file is one template)`,
        );
      }
      if (word === 'if' || word === 'with' || word === 'range') {
        lexer.next();
        nodes.push(this.control(word, lexer, token.at));
      } else if (word === 'break' || word === 'continue') {
        lexer.next();
        lexer.expectEnd();
        if (this.rangeDepth === 0) throw this.error(token.at, `{{${word}}} outside {{range}}`);
        nodes.push({ kind: word, at: token.at });
      } else {
        const pipe = lexer.pipeline(true);
        lexer.expectEnd();
        if (pipe.commands.length === 0) throw this.error(token.at, 'missing value for command');
        this.declare(pipe);
        nodes.push({ kind: 'action', pipe });
      }
    }
    return { nodes, end: undefined };
  }

  private control(kind: 'if' | 'with' | 'range', lexer: Lexer, at: Position): Node {
    const mark = this.scope.length;
    this.enter(at);
    try {
      return this.controlBody(kind, lexer, at);
    } finally {
      this.scope.length = mark;
      this.depth--;
    }
  }

  /** Counts one more level of nesting; refuses past {@link MAX_DEPTH}. */
  enter(at: Position): void {
    if (++this.depth > MAX_DEPTH) throw this.error(at, `nested deeper than ${MAX_DEPTH} levels`);
  }

  /** Whether `$name` is in scope here. */
  isDeclared(name: string): boolean {
    return this.scope.includes(name);
  }

  private declare(pipe: Pipeline): void {
    for (const name of pipe.variables) {
      if (!pipe.assign) this.scope.push(name);
      else if (!this.isDeclared(name)) throw this.error(pipe.at, `undefined variable "${name}"`);
    }
  }

  private controlBody(kind: 'if' | 'with' | 'range', lexer: Lexer, at: Position): Node {
    const pipe = lexer.pipeline(true);
    lexer.expectEnd();
    if (pipe.commands.length === 0) throw this.error(at, `missing value for ${kind}`);
    if (kind === 'range' && pipe.variables.length > 2)
      throw this.error(at, 'too many declarations in range');
    if (kind !== 'range' && pipe.variables.length > 1)
      throw this.error(at, `too many declarations in ${kind}`);
    this.declare(pipe);
    if (kind === 'range') this.rangeDepth++;
    const body = this.list();
    if (kind === 'range') this.rangeDepth--;
    if (body.end === undefined) throw this.error(at, `unexpected EOF: {{${kind}}} has no {{end}}`);
    if (body.end.word === 'end') {
      body.end.rest.expectEnd();
      return { kind, pipe, body: body.nodes, otherwise: undefined, at };
    }
    // `{{else}}`, or `{{else if …}}` / `{{else with …}}`: a nested control that shares our {{end}}.
    const rest = body.end.rest;
    const chained = rest.peekWord();
    if (chained === undefined) {
      rest.expectEnd();
      const otherwise = this.list();
      if (otherwise.end?.word !== 'end') {
        throw this.error(
          otherwise.end?.at ?? at,
          `{{${kind}}}'s {{else}} must be followed by {{end}}`,
        );
      }
      otherwise.end.rest.expectEnd();
      return { kind, pipe, body: body.nodes, otherwise: otherwise.nodes, at };
    }
    if (chained === 'if' || chained === 'with') {
      rest.next();
      return {
        kind,
        pipe,
        body: body.nodes,
        otherwise: [this.control(chained, rest, body.end.at)],
        at,
      };
    }
    throw this.error(body.end.at, `unexpected "${chained}" after {{else}}`);
  }
}

/** Tokens of one action's body. */
class Lexer {
  private offset = 0;

  constructor(
    private readonly body: string,
    private readonly base: number,
    private readonly parser: Parser,
  ) {}

  private at(): Position {
    return this.parser.position(this.base + this.offset);
  }

  private skipSpace(): void {
    while (this.offset < this.body.length && /\s/.test(this.body[this.offset] ?? '')) this.offset++;
  }

  private rest(): string {
    return this.body.slice(this.offset);
  }

  /** The keyword or identifier next, without consuming it. */
  peekWord(): string | undefined {
    this.skipSpace();
    return /^([A-Za-z_]\w*)(?![\w.])/.exec(this.rest())?.[1];
  }

  /** Consumes the word {@link peekWord} saw. */
  next(): void {
    const word = this.peekWord();
    if (word !== undefined) this.offset += word.length;
  }

  expectEnd(): void {
    this.skipSpace();
    if (this.offset < this.body.length) {
      throw this.parser.error(this.at(), `unexpected "${this.rest().slice(0, 20)}" in action`);
    }
  }

  /** A pipeline, up to the end of the action or a closing parenthesis. */
  pipeline(declarationsAllowed: boolean): Pipeline {
    this.skipSpace();
    const at = this.at();
    const variables: string[] = [];
    let assign = false;
    if (declarationsAllowed) {
      const declaration = /^(\$\w*)\s*(?:,\s*(\$\w*)\s*)?(:=|=)(?!=)/.exec(this.rest());
      if (declaration !== null) {
        variables.push(declaration[1] ?? '$');
        if (declaration[2] !== undefined) variables.push(declaration[2]);
        assign = declaration[3] === '=';
        this.offset += declaration[0].length;
      }
    }
    const commands: Command[] = [];
    for (;;) {
      this.skipSpace();
      if (this.offset >= this.body.length || this.body[this.offset] === ')') break;
      commands.push(this.command());
      this.skipSpace();
      if (this.body[this.offset] === '|') {
        this.offset++;
        this.skipSpace();
        if (this.offset >= this.body.length || this.body[this.offset] === ')') {
          throw this.parser.error(this.at(), 'missing command after |');
        }
        continue;
      }
      break;
    }
    return { variables, assign, commands, at };
  }

  private command(): Command {
    const at = this.at();
    const args: Operand[] = [];
    for (;;) {
      this.skipSpace();
      const char = this.body[this.offset];
      if (char === undefined || char === '|' || char === ')') break;
      args.push(this.operand());
      const after = this.body[this.offset];
      if (after !== undefined && !/[\s|)]/.test(after)) {
        throw this.parser.error(this.at(), `unexpected "${after}" in operand`);
      }
    }
    const [first, ...rest] = args;
    if (first !== undefined && first.kind !== 'function' && rest.length > 0) {
      throw this.parser.error(first.at, "can't give argument to non-function");
    }
    return { args, at };
  }

  private operand(): Operand {
    const at = this.at();
    const rest = this.rest();
    if (rest.startsWith('(')) {
      this.offset++;
      this.parser.enter(at);
      const pipe = this.pipeline(false);
      this.parser.depth--;
      this.skipSpace();
      if (this.body[this.offset] !== ')') throw this.parser.error(this.at(), 'unclosed left paren');
      this.offset++;
      return { kind: 'pipe', pipe, chain: this.chain(), at };
    }
    if (rest.startsWith('$')) {
      const name = /^\$\w*/.exec(rest)?.[0] ?? '$';
      if (!this.parser.isDeclared(name))
        throw this.parser.error(at, `undefined variable "${name}"`);
      this.offset += name.length;
      return { kind: 'variable', name, chain: this.chain(), at };
    }
    if (rest.startsWith('.') && !/^\.\d/.test(rest)) {
      if (/^\.(?![A-Za-z_])/.test(rest)) {
        this.offset++;
        return { kind: 'dot', at };
      }
      return { kind: 'field', chain: this.chain(), at };
    }
    if (rest.startsWith('"')) return { kind: 'literal', value: this.quoted(at), at };
    if (rest.startsWith('`')) {
      const end = rest.indexOf('`', 1);
      if (end === -1) throw this.parser.error(at, 'unterminated raw quoted string');
      this.offset += end + 1;
      return { kind: 'literal', value: rest.slice(1, end), at };
    }
    if (rest.startsWith("'"))
      throw this.parser.error(at, 'character constants are not supported; use a "string"');
    const number =
      /^[+-]?(?:0[xX][0-9a-fA-F_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?)(?![\w.])/.exec(rest);
    if (number !== null) {
      this.offset += number[0].length;
      const written = number[0].replaceAll('_', '');
      // Go's constants: `3` and `0x1F` are ints, `3.0` and `1e3` floats.
      if (/^[+-]?(?:0[xX][0-9a-fA-F]+|\d+)$/.test(written)) {
        const negative = written.startsWith('-');
        const digits = written.replace(/^[+-]/, '');
        const value = BigInt(digits);
        return { kind: 'literal', value: negative ? -value : value, at };
      }
      const value = Number(written);
      if (!Number.isFinite(value)) throw this.parser.error(at, `bad number syntax: "${number[0]}"`);
      return { kind: 'literal', value, at };
    }
    const word = /^[A-Za-z_]\w*/.exec(rest)?.[0];
    if (word === undefined)
      throw this.parser.error(at, `unexpected "${rest.slice(0, 1)}" in operand`);
    this.offset += word.length;
    if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true', at };
    if (word === 'nil') return { kind: 'literal', value: null, at };
    if (KEYWORDS.has(word) || OTHER_TEMPLATES.has(word)) {
      throw this.parser.error(at, `unexpected keyword "${word}" in operand`);
    }
    if (!FUNCTION_NAMES.has(word)) throw this.parser.error(at, `function "${word}" not defined`);
    return { kind: 'function', name: word, at };
  }

  /** `.a.b` after an operand (or as a field). */
  private chain(): string[] {
    const chain: string[] = [];
    for (
      let match = /^\.([A-Za-z_]\w*)/.exec(this.rest());
      match !== null;
      match = /^\.([A-Za-z_]\w*)/.exec(this.rest())
    ) {
      chain.push(match[1] ?? '');
      this.offset += match[0].length;
    }
    return chain;
  }

  private quoted(at: Position): string {
    const rest = this.rest();
    const match = /^"(?:[^"\\\n]|\\.)*"/.exec(rest);
    if (match === null) throw this.parser.error(at, 'unterminated quoted string');
    this.offset += match[0].length;
    try {
      // Go's escapes are JSON's plus a few (\a \v \x.. \' and octal), written back to JSON's.
      const json = match[0]
        .replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1')
        .replace(/\\a/g, '\\u0007')
        .replace(/\\v/g, '\\u000b')
        .replace(/\\'/g, "'")
        .replace(/\\U([0-9a-fA-F]{8})/g, (_, hex: string) => escapeCodePoint(parseInt(hex, 16)));
      return JSON.parse(json) as string;
    } catch {
      throw this.parser.error(at, `bad escape in string ${match[0].slice(0, 40)}`);
    }
  }
}

function escapeCodePoint(code: number): string {
  return String.fromCodePoint(code)
    .split('')
    .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');
}
