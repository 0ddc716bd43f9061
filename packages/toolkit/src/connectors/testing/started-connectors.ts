// Test support, not part of the package (the build leaves src/**/testing out).
import { recordEvents, type EventLog } from '@toolplane/fixtures';
import { afterEach } from 'vitest';
import {
  createConnector,
  type Connector,
  type ConnectorEvent,
  type ConnectorOptions,
} from '../connector.js';

/** A started connector with the events it reported; see {@link useStartedConnectors}. */
export interface StartedConnector {
  readonly connector: Connector;
  readonly log: EventLog<ConnectorEvent>;
  /** Every event so far, in order (the log's). */
  readonly events: readonly ConnectorEvent[];
  /** Resolves with the first event from index `from` on that `match` accepts. */
  readonly waitFor: (
    match: (event: ConnectorEvent) => boolean,
    from?: number,
  ) => Promise<ConnectorEvent>;
}

/**
 * For one test file: a function that creates and starts a connector recording its events, every
 * one of them closed after each test.
 */
export function useStartedConnectors(): (
  source: Parameters<typeof createConnector>[0],
  options?: ConnectorOptions,
) => StartedConnector {
  const open: Connector[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((connector) => connector.close()));
  });
  return (source, options = {}) => {
    const log = recordEvents<ConnectorEvent>();
    const connector = createConnector(source, { ...options, onEvent: log.push });
    open.push(connector);
    connector.start();
    return {
      connector,
      log,
      events: log.events,
      waitFor: (match, from = 0) => log.waitFor(match, { from }),
    };
  };
}

/** Matches a `state_change` event into `state`. */
export const isState =
  (state: string) =>
  (event: ConnectorEvent): boolean =>
    event.type === 'state_change' && event.state === state;
