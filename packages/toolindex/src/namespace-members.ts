/**
 * The tool IDs of each namespace, for listing a namespace and removing it. Registration only
 * appends an ID to its namespace's array: a `Set` per namespace cost a scattered hash insert per
 * tool (a tenth of a registration at 100,000 tools), and a namespace's members are read far
 * less often than they are added. A removed ID stays in the array, noted as stale, until it is
 * read or the stale ones outnumber the live ones.
 *
 * @module
 */

interface Members {
  ids: string[];
  /** Live members. */
  size: number;
  /** IDs in `ids` that were removed since (none, the common case, until a removal). */
  stale: Set<string> | undefined;
}

/** Namespaces with at least one member, each with its members' IDs. */
export interface NamespaceMembers {
  /** Namespaces with members. */
  readonly size: number;
  /** Adds an ID that is not a member of `namespace`. */
  add(namespace: string, id: string): void;
  /** Removes a member; a namespace left without members is forgotten. */
  remove(namespace: string, id: string): void;
  /** How many members `namespace` has (0 for an unknown one). */
  count(namespace: string): number;
  /** The members of `namespace`, in no particular order, in a new array. */
  ids(namespace: string): string[];
  /** Forgets a namespace and its members. */
  delete(namespace: string): void;
  /** The namespaces with members. */
  names(): IterableIterator<string>;
}

/** Stale IDs are swept from a namespace's array once there are more of them than this… */
const SWEEP_MIN_STALE = 32;

/** Creates an empty {@link NamespaceMembers}. */
export function createNamespaceMembers(): NamespaceMembers {
  const groups = new Map<string, Members>();
  // The namespace added to last and its members: tools come server by server, so the next add
  // is most often to the same namespace and needs no map lookup. Dropped when it is forgotten.
  let lastName: string | undefined;
  let lastMembers: Members | undefined;

  function forget(namespace: string): void {
    groups.delete(namespace);
    if (namespace === lastName) {
      lastName = undefined;
      lastMembers = undefined;
    }
  }

  /** The members' live IDs, sweeping the stale ones out of the array for good. */
  function sweep(members: Members): string[] {
    const stale = members.stale;
    if (stale !== undefined && stale.size > 0) {
      members.ids = members.ids.filter((id) => !stale.has(id));
      members.stale = undefined;
    }
    return members.ids;
  }

  return {
    get size() {
      return groups.size;
    },

    add(namespace, id) {
      let members = namespace === lastName ? lastMembers : groups.get(namespace);
      if (members === undefined) {
        members = { ids: [], size: 0, stale: undefined };
        groups.set(namespace, members);
      }
      lastName = namespace;
      lastMembers = members;
      members.size++;
      // An ID removed and added again is still in the array: it is live again.
      if (members.stale?.delete(id) !== true) members.ids.push(id);
    },

    remove(namespace, id) {
      const members = groups.get(namespace);
      if (members === undefined) return;
      members.size--;
      if (members.size === 0) {
        forget(namespace);
        return;
      }
      members.stale ??= new Set();
      members.stale.add(id);
      // …and more than the live ones, so sweeping costs at most what the removals did.
      if (members.stale.size > SWEEP_MIN_STALE && members.stale.size > members.size) sweep(members);
    },

    count(namespace) {
      return groups.get(namespace)?.size ?? 0;
    },

    ids(namespace) {
      const members = groups.get(namespace);
      return members === undefined ? [] : sweep(members).slice();
    },

    delete(namespace) {
      forget(namespace);
    },

    names() {
      return groups.keys();
    },
  };
}
