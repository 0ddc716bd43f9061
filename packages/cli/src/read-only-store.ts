// A store opened read-only (a SQLite file this user may not write) is said once: the refusals
// of the writes that follow (a pin per new tool, what search learns on every call) are the same
// message each time, and saying each would be a line per tool or per call.

/** Says a read-only store once; made by {@link readOnlyNotice}. */
export interface ReadOnlyNotice {
  /** For `openToolkit`'s `onReadOnly`: the store is read-only, and refuses writes with `message`. */
  readonly opened: (message: string) => void;
  /**
   * Whether `message` is the read-only store's refusal of a write, said once (the first time,
   * unless it was said when the store opened): the caller then says nothing of it.
   */
  readonly refused: (message: unknown) => boolean;
}

/**
 * A {@link ReadOnlyNotice} that says the store's refusal with `say`: as soon as the store opens
 * (`atOpen`, for a server, whose writes all go unsaved from then on), or else the first time a
 * write is refused (a one-shot command that may write nothing says nothing).
 */
export function readOnlyNotice(
  say: (message: string) => void,
  options: { readonly atOpen: boolean },
): ReadOnlyNotice {
  let refusal: string | undefined;
  let said = false;
  const sayOnce = (): void => {
    if (said || refusal === undefined) return;
    said = true;
    say(refusal);
  };
  return {
    opened: (message) => {
      refusal = message;
      if (options.atOpen) sayOnce();
    },
    refused: (message) => {
      if (refusal === undefined || message !== refusal) return false;
      sayOnce();
      return true;
    },
  };
}
