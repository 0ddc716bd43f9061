import type { ToolBackend } from './backend-types.js';
import { ToolError } from './errors.js';

// The types live in backend-types.ts, which errors.ts can import without a cycle.
export type {
  LocalBackend,
  McpBackend,
  ProviderBackend,
  ToolBackend,
  ToolBackendKind,
} from './backend-types.js';

const MAX_REF_LENGTH = 256;
// Hoisted: a regular expression literal in a function is a new object on every call, and
// registration checks a reference for every tool.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

function checkRef(value: unknown, field: string): string | undefined {
  if (typeof value !== 'string') return `${field} must be a string`;
  if (value.length === 0) return `${field} must not be empty`;
  if (value.length > MAX_REF_LENGTH) return `${field} is longer than ${MAX_REF_LENGTH} characters`;
  if (CONTROL_CHARACTER.test(value)) return `${field} contains control characters`;
  return undefined;
}

// Module level, not a closure per call: registration validates a backend for every tool.
function fail(why: string): never {
  throw new ToolError('invalid_backend', `invalid backend: ${why}`);
}

function fieldsOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Checks that `backend` is a well-formed {@link ToolBackend}.
 *
 * @throws {ToolError} `invalid_backend` naming the field that is wrong.
 */
export function validateBackend(backend: unknown): asserts backend is ToolBackend {
  const b = fieldsOf(backend) ?? fail('expected an object with a "kind"');
  let problem: string | undefined;
  switch (b.kind) {
    case 'mcp': {
      const mcp = fieldsOf(b.mcp) ?? fail('mcp backend needs { mcp: { serverName } }');
      problem = checkRef(mcp.serverName, 'mcp.serverName');
      break;
    }
    case 'provider': {
      const p =
        fieldsOf(b.provider) ?? fail('provider backend needs { provider: { providerId, toolId } }');
      problem =
        checkRef(p.providerId, 'provider.providerId') ?? checkRef(p.toolId, 'provider.toolId');
      break;
    }
    case 'local': {
      const local = fieldsOf(b.local) ?? fail('local backend needs { local: { name } }');
      problem = checkRef(local.name, 'local.name');
      break;
    }
    default:
      fail(`unknown kind ${JSON.stringify(b.kind)} (expected "mcp", "provider" or "local")`);
  }
  if (problem !== undefined) fail(problem);
}

/**
 * A stable identity for a backend: two bindings with the same key are the same binding.
 *
 * Keys look like `mcp:github`, `provider:openai/web_search`, `local:echo`; parts are
 * URI-encoded, so no two different bindings share a key.
 */
export function backendKey(backend: ToolBackend): string {
  switch (backend.kind) {
    case 'mcp':
      return `mcp:${encodeURIComponent(backend.mcp.serverName)}`;
    case 'provider':
      return `provider:${encodeURIComponent(backend.provider.providerId)}/${encodeURIComponent(backend.provider.toolId)}`;
    case 'local':
      return `local:${encodeURIComponent(backend.local.name)}`;
  }
}
