import { specTypeSchemas, type SpecTypeName } from '@modelcontextprotocol/client';

/**
 * What is wrong with `value` as the MCP spec type `name`: the first issue's path and message, or
 * `undefined` when it is one.
 */
export function specIssue(name: SpecTypeName, value: unknown): string | undefined {
  const checked = specTypeSchemas[name]['~standard'].validate(value);
  const [issue] = checked.issues ?? [];
  if (checked.issues === undefined) return undefined;
  if (issue === undefined) return '';
  const path = (issue.path ?? [])
    .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
    .join('/');
  return `${path || '(root)'} ${issue.message}`;
}
