/** One row of {@link CANONICAL_RESOURCE_CASES}. */
export interface CanonicalResourceCase {
  /** What the row checks, for the test's name. */
  readonly name: string;
  readonly input: string;
  /** The canonical form; `undefined` when the input is refused (`invalid_config`). */
  readonly canonical: string | undefined;
  /**
   * The canonical form when a fragment is dropped rather than refused (a client deriving the
   * resource from the URL it fetches); the same as `canonical` unless the input has a fragment.
   */
  readonly fragmentDropped: string | undefined;
}

function row(name: string, input: string, canonical: string | undefined): CanonicalResourceCase {
  return { name, input, canonical, fragmentDropped: canonical };
}

function fragment(name: string, input: string, dropped: string): CanonicalResourceCase {
  return { name, input, canonical: undefined, fragmentDropped: dropped };
}

/**
 * The table every side of OAuth checks its resource URIs against (`canonicalResource` in
 * `@toolplane/toolmodel`, the toolkit's OAuth client, the oauth package's resource server):
 * trailing slashes, bare origins, case, default ports, fragments, queries and refusals.
 */
export const CANONICAL_RESOURCE_CASES: readonly CanonicalResourceCase[] = [
  row('a plain path', 'https://example.com/mcp', 'https://example.com/mcp'),
  row('a trailing slash after the path', 'https://example.com/mcp/', 'https://example.com/mcp'),
  row('several trailing slashes', 'https://example.com/mcp//', 'https://example.com/mcp'),
  row('a bare origin', 'https://example.com', 'https://example.com'),
  row('a bare origin with its slash', 'https://example.com/', 'https://example.com'),
  row('upper-case scheme and host', 'HTTPS://Example.COM/mcp/', 'https://example.com/mcp'),
  row('upper case in the path kept', 'https://example.com/A/Mcp', 'https://example.com/A/Mcp'),
  row('the https default port', 'https://example.com:443/mcp', 'https://example.com/mcp'),
  row('the http default port', 'http://example.com:80/mcp', 'http://example.com/mcp'),
  row('a port that is not the default', 'http://LocalHost:8808/mcp/', 'http://localhost:8808/mcp'),
  row('http on the loopback', 'http://127.0.0.1:9/a/b', 'http://127.0.0.1:9/a/b'),
  row('a query kept', 'https://example.com/mcp?tenant=A', 'https://example.com/mcp?tenant=A'),
  row('a query after a slash', 'https://example.com/mcp/?t=1', 'https://example.com/mcp?t=1'),
  row('an empty query dropped', 'https://example.com/mcp?', 'https://example.com/mcp'),
  row('an empty fragment', 'https://example.com/mcp#', 'https://example.com/mcp'),
  fragment('a fragment', 'https://example.com/mcp#frag', 'https://example.com/mcp'),
  fragment('a fragment on a bare origin', 'https://Example.com/#x', 'https://example.com'),
  fragment(
    'a fragment after a query',
    'http://127.0.0.1:9/mcp?q=1#f',
    'http://127.0.0.1:9/mcp?q=1',
  ),
  row('a relative reference', 'mcp', undefined),
  row('a path alone', '/mcp', undefined),
  row('another scheme', 'ftp://example.com/mcp', undefined),
  row('a file URL', 'file:///etc/passwd', undefined),
  row('not a URL', 'not a url', undefined),
];
