/**
 * The MCP revision of the 2026 era, spoken per request (no `initialize`, no session): what a
 * client names in `server/discover`, each request's `_meta` and the `MCP-Protocol-Version`
 * header. The SDK exports the 2025 era's revisions but not this one; the connectors, the gateway
 * and the tests that speak it raw read it here.
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
