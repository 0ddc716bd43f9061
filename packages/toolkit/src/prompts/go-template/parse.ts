import { ToolError } from '@toolplane/toolmodel';
import { FUNCTION_NAMES } from './functions.js';
import { KEYWORDS, Lexer, OTHER_TEMPLATES, type LexerHost } from './lexer.js';
import type { Node, Pipeline, Position } from './tree.js';

// A parser for Go's text/template language, as far as prompt files use it: text and actions with
// trim markers and comments; pipelines of fields, variables, literals, parentheses and function
// calls; variable declaration and assignment; if / else if / else, range (with `$i, $v :=`,
// `else`, `break`, `continue`), with / else with / else. `define`, `template` and `block` name
// other templates, which a prompt file has none of, so they are refused when the file is loaded,
// as is any function outside the table in ./functions.ts: a form we cannot render never renders
// as something else.

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

class Parser implements LexerHost {
  private readonly tokens: Token[];
  private index = 0;
  /** How many `range` bodies enclose the node being parsed: `break` and `continue` need one. */
  private rangeDepth = 0;
  /** How many controls and parentheses enclose it: bounded, so no input can exhaust the stack. */
  private depth = 0;
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
      this.leave();
    }
  }

  /** Counts one more level of nesting; refuses past {@link MAX_DEPTH}. */
  enter(at: Position): void {
    if (++this.depth > MAX_DEPTH) throw this.error(at, `nested deeper than ${MAX_DEPTH} levels`);
  }

  leave(): void {
    this.depth--;
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
