import { listAll, type ToolSource } from '@toolplane/adapter-kit';
import { didYouMean, ToolError } from '@toolplane/toolmodel';

// The toolkit's lookup order for a bare name: its builtins, then the connectors' namespaces, then
// the user namespace of the store.
const FIRST = 'builtin';
const LAST = 'user';

function tier(namespace: string | undefined): number {
  return namespace === FIRST ? 0 : namespace === LAST ? 2 : 1;
}

/**
 * The canonical IDs of the tools a prompt's `tools:` names. An ID (`ns:name`) stands as written;
 * a bare name (`add`, as the seed writes them) is the tool of that name found first in the
 * toolkit's lookup order, and is refused when the first namespace tier that has it has it more
 * than once. A name that matches nothing is refused too: a model silently offered fewer tools
 * than its prompt says is worse than an error.
 *
 * @throws {ToolError} `invalid_prompt` naming the prompt, the name, and what it matched.
 */
export function resolvePromptTools(
  index: ToolSource['index'],
  names: readonly string[],
  prompt: string,
): string[] {
  const byName = new Map<string, { id: string; namespace: string | undefined }[]>();
  const entries = listAll(index, {});
  for (const entry of entries) {
    const list = byName.get(entry.tool.name) ?? [];
    list.push({ id: entry.id, namespace: entry.tool.namespace });
    byName.set(entry.tool.name, list);
  }
  return names.map((name) => {
    if (name.includes(':')) {
      if (index.hasTool(name)) return name;
      throw new ToolError(
        'invalid_prompt',
        `prompt "${prompt}" names tool "${name}", which the toolkit does not have${hint(name.slice(name.lastIndexOf(':') + 1), byName)}`,
      );
    }
    const found = byName.get(name) ?? [];
    if (found.length === 0) {
      throw new ToolError(
        'invalid_prompt',
        `prompt "${prompt}" names tool "${name}", which no namespace of the toolkit has${hint(name, byName)}`,
      );
    }
    const best = Math.min(...found.map((candidate) => tier(candidate.namespace)));
    const first = found.filter((candidate) => tier(candidate.namespace) === best);
    if (first.length > 1) {
      throw new ToolError(
        'invalid_prompt',
        `prompt "${prompt}" names tool "${name}", which is ${first.map((c) => c.id).join(' and ')}; write the one it means as ns:name`,
      );
    }
    return (first[0] as { id: string }).id;
  });
}

function hint(name: string, byName: ReadonlyMap<string, readonly { id: string }[]>): string {
  const near = didYouMean(name, byName.keys());
  const ids = near === undefined ? [] : (byName.get(near) ?? []).map((candidate) => candidate.id);
  return ids.length === 0 ? '' : ` (did you mean ${ids.join(' or ')}?)`;
}
