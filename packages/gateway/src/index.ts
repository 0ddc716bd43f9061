export { INSTANCE_META_KEY, serveHttp } from './http/serve.js';
export type {
  AuthPrompt,
  AuthRefusal,
  AuthResource,
  AuthTool,
  GatewayAuth,
  GatewayCaller,
} from './auth/gateway-auth.js';
export type {
  AuthAttempts,
  HttpGateway,
  HttpRoute,
  RouteContext,
  ServeHttpOptions,
} from './http/serve.js';
export type { AuthFailureLimitOptions } from './http/auth-failures.js';
export type { StartupOptions } from './http/startup.js';
export {
  DEFAULT_SEPARATOR,
  EXPOSED_NAME_PATTERN,
  GATEWAY_URI_SCHEME,
  NameTable,
  rewriteUri,
  UriTable,
} from './names.js';
export type { NamedItem, NamingOptions, UriItem } from './names.js';
export { createMcpServer, ERROR_META_KEY } from './server.js';
export { describeUnmatchedEntry, unmatchedFilterEntries } from './filter-check.js';
export type { FilterList, UnmatchedFilterEntry } from './filter-check.js';
export type {
  GatewayOptions,
  GatewayReconfigure,
  GatewayToolFilter,
  ServedGateway,
} from './options.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the old name, kept one minor
export type { ToolFilter } from './options.js';
export { createSamplingDelegate } from './session/sampling-delegate.js';
export type { SamplingDelegateOptions } from './session/sampling-delegate.js';
export { serveStdio } from './stdio/serve.js';
export type { ServeStdioOptions } from './stdio/serve.js';
export { createGatewayMetrics } from './observe/metrics.js';
export type { GatewayMetrics, GatewayMetricsOptions, MetricsSource } from './observe/metrics.js';
export { combineObservers, UNKNOWN_TOOL } from './observe/observer.js';
export type {
  CallOutcome,
  ConnectionBoundRecord,
  GatewayObserver,
  HttpRequestRecord,
  ToolCallRecord,
} from './observe/observer.js';
