export { INSTANCE_META_KEY, serveHttp } from './http.js';
export type {
  AuthPrompt,
  AuthRefusal,
  AuthResource,
  AuthTool,
  GatewayAuth,
  GatewayCaller,
} from './auth/gateway-auth.js';
export type { HttpGateway, ServeHttpOptions } from './http.js';
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
export type { GatewayOptions, GatewayToolFilter } from './server.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the old name, kept one minor
export type { ToolFilter } from './gateway-options.js';
export { createSamplingDelegate } from './sampling-delegate.js';
export type { SamplingDelegateOptions } from './sampling-delegate.js';
export { serveStdio } from './stdio.js';
export type { ServedGateway, ServeStdioOptions } from './stdio.js';
