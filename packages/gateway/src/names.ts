// The tool name codec lives in @toolplane/toolmodel, shared with the framework adapters; the
// gateway keeps its resource URI table here.
export {
  DEFAULT_SEPARATOR,
  EXPOSED_NAME_PATTERN,
  NameTable,
  type NamedItem,
  type NamingOptions,
} from '@toolplane/toolmodel';

/** An exposed resource: the URI clients see, and where it comes from. */
export interface UriItem {
  readonly namespace: string;
  readonly uri: string;
}

/** The scheme of rewritten resource URIs. */
export const GATEWAY_URI_SCHEME = 'toolplane';

/**
 * A two-way mapping between resources and the URIs a gateway exposes them by: a URI only one
 * namespace lists is kept as is; one several list becomes `toolplane://<namespace>/<encoded URI>`.
 */
export class UriTable<T extends UriItem> {
  readonly #byUri = new Map<string, T>();
  readonly #byKey = new Map<string, string>();

  constructor(items: Iterable<T>) {
    const all = [...items];
    const owners = new Map<string, Set<string>>();
    for (const item of all) {
      const set = owners.get(item.uri) ?? new Set<string>();
      set.add(item.namespace);
      owners.set(item.uri, set);
    }
    for (const item of all) {
      const key = `${item.namespace}\u0000${item.uri}`;
      if (this.#byKey.has(key)) continue;
      const shared = (owners.get(item.uri)?.size ?? 0) > 1;
      const exposed = shared ? rewriteUri(item.namespace, item.uri) : item.uri;
      // An upstream URI that already looks rewritten cannot shadow a rewritten one.
      if (this.#byUri.has(exposed)) continue;
      this.#byUri.set(exposed, item);
      this.#byKey.set(key, exposed);
    }
  }

  /** The URI clients see for a resource, or `undefined` when it is not in the table. */
  uriOf(item: UriItem): string | undefined {
    return this.#byKey.get(`${item.namespace}\u0000${item.uri}`);
  }

  /** The resource exposed as `uri`, or `undefined`. */
  resolve(uri: string): T | undefined {
    return this.#byUri.get(uri);
  }
}

/** `toolplane://<namespace>/<uri, percent-encoded>`: a valid URI that names its namespace. */
export function rewriteUri(namespace: string, uri: string): string {
  return `${GATEWAY_URI_SCHEME}://${namespace}/${encodeURIComponent(uri)}`;
}
