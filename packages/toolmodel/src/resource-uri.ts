import { ToolError } from './errors.js';

/** Options of {@link canonicalResource}. */
export interface CanonicalResourceOptions {
  /**
   * What a fragment in the input means. `'refuse'` (the default) throws, as a resource server
   * naming itself should: RFC 8707 forbids a fragment in a resource. `'drop'` removes it, as a
   * client deriving the resource from the URL it fetches may: a fragment never leaves the client,
   * so the resource it reaches is the one without it.
   */
  readonly fragment?: 'refuse' | 'drop';
}

/**
 * The canonical form of a resource URI (RFC 8707 §2, as the MCP authorization spec uses it): an
 * absolute http(s) URI, scheme and host in lower case, no default port, no fragment, no empty
 * query, and no trailing slash after the path (a bare origin keeps none either). The path and
 * the query keep their case. An OAuth client and a resource server that both use it name a
 * resource the same way, so audiences, `resource` parameters and metadata URLs match.
 *
 * @throws {ToolError} `invalid_config` for a URI that is not absolute http(s), or that has a
 * fragment while `fragment` is `'refuse'`.
 */
export function canonicalResource(
  uri: string | URL,
  options: CanonicalResourceOptions = {},
): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch (error) {
    throw new ToolError('invalid_config', `resource ${JSON.stringify(String(uri))} is not a URL`, {
      cause: error,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(
      'invalid_config',
      `resource ${JSON.stringify(url.href)} must be an http or https URL`,
    );
  }
  if (url.hash !== '' && options.fragment !== 'drop') {
    throw new ToolError(
      'invalid_config',
      `resource ${JSON.stringify(url.href)} has a fragment; name the resource without one`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}${url.search}`;
}
