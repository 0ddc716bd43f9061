import { ToolError } from '@toolplane/toolmodel';
import { CallError, callFunction, isMap, truth } from './functions.js';
import { formatValue, MISSING, typeName, type Value } from './format.js';
import type { Command, ControlNode, Node, Operand, Pipeline, Position } from './tree.js';

/** Bounds of one render. */
export interface GoTemplateLimits {
  /** Longest output, in UTF-16 code units. */
  readonly maxOutputLength: number;
  /** Wall-clock budget, in milliseconds. */
  readonly timeLimitMs: number;
}

/**
 * Runs a parsed Go template against JSON `data` (the template's dot and `$`), as Go's
 * text/template executes it.
 *
 * @throws {ToolError} `invalid_prompt` naming the line and column of the action that failed, or
 * the limit that was passed.
 */
export function executeGoTemplate(
  nodes: readonly Node[],
  data: unknown,
  where: string,
  limits: GoTemplateLimits,
): string {
  return new Execution(where, limits, data as Value).run(nodes);
}

const BREAK = Symbol('break');
const CONTINUE = Symbol('continue');
type Flow = typeof BREAK | typeof CONTINUE | undefined;
/** How many steps pass between two looks at the clock. */
const CLOCK_EVERY = 1024;

class Execution {
  private out = '';
  private readonly variables: [string, Value][];
  private readonly deadline: number;
  private steps = 0;

  constructor(
    private readonly where: string,
    private readonly limits: GoTemplateLimits,
    private readonly root: Value,
  ) {
    this.variables = [['$', root]];
    this.deadline = Date.now() + limits.timeLimitMs;
  }

  run(nodes: readonly Node[]): string {
    this.walk(nodes, this.root);
    return this.out;
  }

  private fail(at: Position | undefined, message: string): ToolError {
    const place = at === undefined ? '' : `:${at.line}:${at.column}`;
    return new ToolError('invalid_prompt', `${this.where}${place}: rendering failed: ${message}`);
  }

  private tick(at: Position | undefined): void {
    if (++this.steps % CLOCK_EVERY === 0 && Date.now() > this.deadline) {
      throw this.fail(at, `took longer than ${this.limits.timeLimitMs} ms`);
    }
  }

  private write(text: string, at: Position | undefined): void {
    if (this.out.length + text.length > this.limits.maxOutputLength) {
      throw this.fail(
        at,
        `output is over ${this.limits.maxOutputLength} characters; shorten the template or its input`,
      );
    }
    this.out += text;
  }

  private walk(nodes: readonly Node[], dot: Value): Flow {
    for (const node of nodes) {
      const flow = this.node(node, dot);
      if (flow !== undefined) return flow;
    }
    return undefined;
  }

  private node(node: Node, dot: Value): Flow {
    switch (node.kind) {
      case 'text':
        this.write(node.text, undefined);
        return undefined;
      case 'action': {
        const value = this.pipeline(node.pipe, dot);
        // An action that declares or assigns a variable prints nothing.
        if (node.pipe.variables.length === 0) this.write(formatValue(value), node.pipe.at);
        return undefined;
      }
      case 'break':
        return BREAK;
      case 'continue':
        return CONTINUE;
      default:
        return this.control(node, dot);
    }
  }

  private control(node: ControlNode, dot: Value): Flow {
    const mark = this.variables.length;
    try {
      if (node.kind === 'range') return this.range(node, dot);
      const value = this.pipeline(node.pipe, dot);
      if (truth(value)) return this.walk(node.body, node.kind === 'with' ? value : dot);
      return node.otherwise === undefined ? undefined : this.walk(node.otherwise, dot);
    } finally {
      this.variables.length = mark;
    }
  }

  private range(node: ControlNode, dot: Value): Flow {
    const { pipe } = node;
    const value = this.pipeline({ ...pipe, variables: [] }, dot);
    const entries = this.iterate(value, pipe);
    const mark = this.variables.length;
    let ran = false;
    for (const [key, element] of entries) {
      ran = true;
      this.tick(node.at);
      this.variables.length = mark;
      if (pipe.variables.length === 1) this.variables.push([pipe.variables[0] ?? '$', element]);
      if (pipe.variables.length === 2) {
        this.variables.push([pipe.variables[0] ?? '$', key], [pipe.variables[1] ?? '$', element]);
      }
      const flow = this.walk(node.body, element);
      if (flow === BREAK) break;
    }
    this.variables.length = mark;
    if (!ran && node.otherwise !== undefined) return this.walk(node.otherwise, dot);
    return undefined;
  }

  private *iterate(value: Value, pipe: Pipeline): Generator<[Value, Value]> {
    if (value === MISSING || value === null) return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) yield [BigInt(i), value[i] as Value];
      return;
    }
    if (isMap(value)) {
      for (const key of Object.keys(value).sort()) yield [key, value[key] as Value];
      return;
    }
    if (typeof value === 'bigint') {
      if (pipe.variables.length > 1)
        throw this.fail(pipe.at, "can't use two iteration variables with an integer");
      for (let i = 0n; i < value; i++) yield [i, i];
      return;
    }
    throw this.fail(pipe.at, `range can't iterate over ${formatValue(value)}`);
  }

  private pipeline(pipe: Pipeline, dot: Value): Value {
    let value: Value | undefined;
    for (const command of pipe.commands) value = this.command(command, dot, value);
    const result = value === undefined ? MISSING : value;
    for (const name of pipe.variables) {
      if (pipe.assign) this.assign(name, result);
      else this.variables.push([name, result]);
    }
    return result;
  }

  private assign(name: string, value: Value): void {
    for (let i = this.variables.length - 1; i >= 0; i--) {
      const entry = this.variables[i];
      if (entry?.[0] === name) {
        entry[1] = value;
        return;
      }
    }
    throw this.fail(undefined, `undefined variable: ${name}`);
  }

  private variable(name: string, at: Position): Value {
    for (let i = this.variables.length - 1; i >= 0; i--) {
      const entry = this.variables[i];
      if (entry?.[0] === name) return entry[1];
    }
    throw this.fail(at, `undefined variable: ${name}`);
  }

  private command(command: Command, dot: Value, piped: Value | undefined): Value {
    this.tick(command.at);
    const [first, ...rest] = command.args;
    if (first === undefined) throw this.fail(command.at, 'empty command');
    if (first.kind !== 'function') {
      if (piped !== undefined) throw this.fail(first.at, "can't give argument to non-function");
      return this.operand(first, dot);
    }
    if (first.name === 'and' || first.name === 'or')
      return this.logic(first.name, rest, dot, piped, first.at);
    const args = rest.map((arg) => this.operand(arg, dot));
    if (piped !== undefined) args.push(piped);
    try {
      const value = callFunction(first.name, args);
      if (typeof value === 'string' && value.length > this.limits.maxOutputLength) {
        throw new CallError(`result is over ${this.limits.maxOutputLength} characters`);
      }
      return value;
    } catch (error) {
      if (error instanceof CallError || error instanceof RangeError) {
        throw this.fail(first.at, `error calling ${first.name}: ${error.message}`);
      }
      throw error;
    }
  }

  // `and` and `or` stop at the first argument that decides them, as Go 1.18 does.
  private logic(
    name: 'and' | 'or',
    operands: readonly Operand[],
    dot: Value,
    piped: Value | undefined,
    at: Position,
  ): Value {
    const count = operands.length + (piped === undefined ? 0 : 1);
    if (count === 0) throw this.fail(at, `wrong number of args for ${name}: want at least 1 got 0`);
    let value: Value = MISSING;
    for (let i = 0; i < count; i++) {
      const operand = operands[i];
      value =
        operand === undefined
          ? piped === undefined
            ? MISSING
            : piped
          : this.operand(operand, dot);
      if (truth(value) === (name === 'or')) return value;
    }
    return value;
  }

  private operand(operand: Operand, dot: Value): Value {
    switch (operand.kind) {
      case 'dot':
        return dot;
      case 'literal':
        return operand.value;
      case 'field':
        return this.fields(dot, operand.chain, operand.at);
      case 'variable':
        return this.fields(this.variable(operand.name, operand.at), operand.chain, operand.at);
      case 'pipe':
        return this.fields(this.pipeline(operand.pipe, dot), operand.chain, operand.at);
      case 'function':
        // A function named as an argument (`print upper`) is called with no arguments in Go.
        return this.command({ args: [operand], at: operand.at }, dot, undefined);
    }
  }

  private fields(value: Value, chain: readonly string[], at: Position): Value {
    let current = value;
    for (const name of chain) {
      if (isMap(current)) {
        current = Object.hasOwn(current, name) ? (current[name] as Value) : MISSING;
      } else if (current === null || current === MISSING) {
        throw this.fail(at, `nil pointer evaluating interface {}.${name}`);
      } else {
        throw this.fail(at, `can't evaluate field ${name} in type ${typeName(current)}`);
      }
    }
    return current;
  }
}
