import { TOOL_NAME_PATTERN } from '@toolplane/toolmodel';
import { quoted } from '@toolplane/toolmodel/text';

// Valid by the character rule, yet they name JavaScript's object machinery: a consumer that keys
// a plain object by prompt or resource name would break on them.
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Why `value` is not a valid prompt or resource name (a phrase to follow "name"), or `undefined`
 * when it is. Names follow toolmodel's tool-name rule ({@link TOOL_NAME_PATTERN}).
 *
 * @internal
 */
export function nameProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a string, got ${typeof value}`;
  const shown = quoted(value);
  if (RESERVED.has(value)) return `${shown} is reserved`;
  if (!TOOL_NAME_PATTERN.test(value)) {
    return `${shown} breaks the rule: 1-128 characters of A-Z a-z 0-9 _ - .`;
  }
  return undefined;
}
