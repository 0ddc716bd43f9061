import { FUNCTION_NAMES } from './functions.js';
import type { Command, Operand, Pipeline, Position } from './tree.js';
import type { ToolError } from '@toolplane/toolmodel';

/** What the lexer asks of the parser it works for. */
export interface LexerHost {
  position(offset: number): Position;
  error(at: Position, message: string): ToolError;
  /** Whether `$name` is in scope here. */
  isDeclared(name: string): boolean;
  /** One more level of nesting (refused past the bound); {@link LexerHost.leave} undoes it. */
  enter(at: Position): void;
  leave(): void;
}

export const KEYWORDS: ReadonlySet<string> = new Set([
  'if',
  'else',
  'end',
  'range',
  'with',
  'break',
  'continue',
]);
export const OTHER_TEMPLATES: ReadonlySet<string> = new Set(['define', 'template', 'block']);

/** Tokens of one action's body. */
export class Lexer {
  private offset = 0;

  constructor(
    private readonly body: string,
    private readonly base: number,
    private readonly parser: LexerHost,
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
      this.parser.leave();
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
