import { createHash } from 'node:crypto';
import { canonicalJson, ToolError } from '@toolplane/toolmodel';

/** A fingerprint as {@link fingerprintTool} makes it. @internal */
export const FINGERPRINT_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** The parts of an MCP tool definition a pin covers. */
export interface PinnableTool {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** A tool definition reduced to what a pin covers, with its fingerprint. */
export interface ToolFingerprint {
  /** `sha256:` and the hex SHA-256 of {@link ToolFingerprint.definition}. */
  readonly fingerprint: string;
  /** The covered fields as canonical JSON: keys sorted, no insignificant whitespace. */
  readonly definition: string;
}

/**
 * The fingerprint of a tool definition: its name, description, input and output schemas and
 * annotations as canonical JSON (sorted keys), hashed with SHA-256. Anything else the server sends
 * (`_meta`, `title`, icons) is left out, so a pin only changes when what a model reads or relies
 * on changes.
 *
 * @throws {ToolError} `invalid_tool` when the definition holds a value JSON cannot carry.
 */
export function fingerprintTool(tool: PinnableTool): ToolFingerprint {
  const covered = {
    name: tool.name,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
  let definition: string;
  try {
    // Definitions arrive as parsed JSON; a cycle (from code that built one) cannot be pinned.
    definition = canonicalJson(covered);
  } catch (error) {
    throw new ToolError(
      'invalid_tool',
      `tool ${JSON.stringify(tool.name)} has a definition that is not plain JSON, so it cannot be pinned`,
      { cause: error },
    );
  }
  const hash = createHash('sha256').update(definition).digest('hex');
  return { fingerprint: `sha256:${hash}`, definition };
}
