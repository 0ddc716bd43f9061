// SIGHUP for the whole life of `serve`. Node ends a process on SIGHUP unless someone listens, so
// the config reloader's own listener alone left two windows where `kill -HUP` (a `systemctl
// reload`, a closing terminal) ended the gateway: while its servers were still starting, and while
// it drained on its way out. The servers it had started went on running, and calls were cut.

/** Where a reloader hears its hang-ups; see {@link holdHangUps}. */
export interface HangUps {
  /** Calls `onHangUp` on each SIGHUP from now on (at once for one held); returns the stop. */
  listen(onHangUp: () => void): () => void;
}

/** SIGHUP heard from {@link holdHangUps} on, until released. */
export interface HeldHangUps extends HangUps {
  /** Stops hearing SIGHUP (Node's default, the end of the process, applies again). */
  release(): void;
}

/** The process's own SIGHUP, heard only while listened to. */
export const processHangUps: HangUps = {
  listen(onHangUp) {
    process.on('SIGHUP', onHangUp);
    return () => {
      process.off('SIGHUP', onHangUp);
    };
  },
};

/**
 * Hears SIGHUP from now until {@link release}: one that comes while nobody listens (the config is
 * not watched yet) is held for the first listener, one that comes after the listener stopped (the
 * gateway is shutting down) is let go; neither ends the process.
 */
export function holdHangUps(): HeldHangUps {
  let listener: (() => void) | undefined;
  let held = false;
  let stopped = false;
  const onSignal = (): void => {
    if (listener !== undefined) listener();
    else if (!stopped) held = true;
  };
  process.on('SIGHUP', onSignal);
  return {
    listen(onHangUp) {
      listener = onHangUp;
      if (held) {
        held = false;
        onHangUp();
      }
      return () => {
        if (listener === onHangUp) listener = undefined;
        stopped = true;
      };
    },
    release() {
      process.off('SIGHUP', onSignal);
    },
  };
}
