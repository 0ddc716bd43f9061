// The tree a Go template parses to (./parse.ts) and executes from (./exec.ts).

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
