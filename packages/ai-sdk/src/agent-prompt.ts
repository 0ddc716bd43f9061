import { parsePrompt, type ParsePromptOptions, type Prompt } from '@toolplane/toolkit';
import { ToolError } from '@toolplane/toolmodel';
import { isMap, isScalar, parseDocument } from 'yaml';

/**
 * How an agent runs one prompt, beyond what the toolkit's prompt holds: its step limit and which
 * tools it may see (by namespace and tag; the prompt's own `tools` list gives IDs).
 */
export interface AgentSettings {
  /** The most model steps (each a model call, with its tool calls); front matter `max_steps`. */
  readonly maxSteps?: number;
  /** Only tools of these namespaces; front matter `tool_namespaces`. */
  readonly toolNamespaces?: readonly string[];
  /** Only tools with at least one of these tags; front matter `tool_tags`. */
  readonly toolTags?: readonly string[];
}

/** A prompt file read by {@link parseAgentPrompt}: the toolkit's prompt and the agent's settings. */
export interface AgentPrompt {
  readonly prompt: Prompt;
  readonly settings: AgentSettings;
}

/** The most steps a prompt file may ask for. */
export const MAX_AGENT_STEPS = 1000;

const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?\n)?((?:---|\.\.\.)[ \t]*(?:\n|$))/;

type Check = (value: unknown) => string | undefined;
const isSteps: Check = (v) =>
  Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MAX_AGENT_STEPS
    ? undefined
    : `must be an integer from 1 to ${MAX_AGENT_STEPS}`;
const isNames: Check = (v) =>
  Array.isArray(v) && v.length > 0 && v.every((item) => typeof item === 'string' && item !== '')
    ? undefined
    : 'must be a non-empty list of names';

const KEYS: Readonly<Record<string, readonly [keyof AgentSettings, Check]>> = {
  max_steps: ['maxSteps', isSteps],
  tool_namespaces: ['toolNamespaces', isNames],
  tool_tags: ['toolTags', isNames],
};

/**
 * Parses a markdown prompt file as {@link parsePrompt} from @toolplane/toolkit does, and reads
 * the agent's own front-matter keys beside the toolkit's: `max_steps`, `tool_namespaces` and
 * `tool_tags`. Those keys are taken out before the toolkit parses the rest, so every other key
 * keeps the toolkit's rules (an unknown key is still an error).
 *
 * @throws {ToolError} `invalid_prompt` naming the file for a bad agent key, and the toolkit's
 * `invalid_prompt` for anything else wrong with the file.
 */
export function parseAgentPrompt(text: string, options: ParsePromptOptions = {}): AgentPrompt {
  const where = options.filename ?? 'prompt';
  const source = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const match = FRONT_MATTER.exec(source);
  if (match === null) return { prompt: parsePrompt(source, options), settings: {} };
  const doc = parseDocument(match[1] ?? '', { schema: 'core', customTags: [], uniqueKeys: true });
  // A front matter the toolkit will refuse: let it say why, in its words.
  if (doc.errors.length > 0 || doc.warnings.length > 0 || !isMap(doc.contents)) {
    return { prompt: parsePrompt(source, options), settings: {} };
  }
  let data: Record<string, unknown>;
  try {
    data = doc.toJS({ maxAliasCount: 50 }) as Record<string, unknown>;
  } catch {
    return { prompt: parsePrompt(source, options), settings: {} };
  }
  const settings: Record<string, unknown> = {};
  for (const [key, [field, check]] of Object.entries(KEYS)) {
    if (!doc.contents.items.some((pair) => isScalar(pair.key) && pair.key.value === key)) continue;
    const value = data[key];
    const problem = check(value);
    if (problem !== undefined) {
      throw new ToolError('invalid_prompt', `${where}: ${key} ${problem}`);
    }
    settings[field] = Array.isArray(value) ? [...(value as string[])] : value;
    doc.delete(key);
  }
  if (Object.keys(settings).length === 0) {
    return { prompt: parsePrompt(source, options), settings: {} };
  }
  const rest = doc.contents.items.length === 0 ? '' : doc.toString();
  const rewritten = `---\n${rest}---\n${source.slice(match[0].length)}`;
  return { prompt: parsePrompt(rewritten, options), settings };
}
