// The `initialize` request a raw client (no SDK) opens a session with, for the tests and benchmarks
// that speak JSON-RPC to the gateway by hand.

/** An `initialize` request: ID 1, protocol 2025-06-18, no client capabilities. */
export const INITIALIZE_REQUEST = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
} as const;

/** {@link INITIALIZE_REQUEST} as an HTTP request body. */
export const INITIALIZE_BODY = JSON.stringify(INITIALIZE_REQUEST);
