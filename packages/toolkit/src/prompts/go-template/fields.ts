import type { Node, Operand, Pipeline } from './tree.js';

/**
 * The fields of its data a Go template reads: `.name` where the dot is the data itself (outside
 * a `with` or `range` body, whose dot is another value) and `$.name` anywhere, in the order they
 * first appear. A prompt without an input schema offers them as its arguments.
 */
export function goTemplateFields(nodes: readonly Node[]): string[] {
  const found = new Set<string>();
  const operand = (op: Operand, atRoot: boolean): void => {
    const first = op.kind === 'field' || op.kind === 'variable' ? op.chain[0] : undefined;
    if (op.kind === 'field' && atRoot && first !== undefined) found.add(first);
    else if (op.kind === 'variable' && op.name === '$' && first !== undefined) found.add(first);
    else if (op.kind === 'pipe') pipeline(op.pipe, atRoot);
  };
  const pipeline = (pipe: Pipeline, atRoot: boolean): void => {
    for (const command of pipe.commands) for (const arg of command.args) operand(arg, atRoot);
  };
  const walk = (list: readonly Node[], atRoot: boolean): void => {
    for (const node of list) {
      if (node.kind === 'action') {
        pipeline(node.pipe, atRoot);
      } else if (node.kind === 'if' || node.kind === 'with' || node.kind === 'range') {
        pipeline(node.pipe, atRoot);
        walk(node.body, node.kind === 'if' && atRoot);
        if (node.otherwise !== undefined) walk(node.otherwise, atRoot);
      }
    }
  };
  walk(nodes, true);
  return [...found];
}
