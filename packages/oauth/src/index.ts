export { AuthError } from './errors.js';
export type { AuthErrorOptions, AuthErrorReason } from './errors.js';
export { discoverAuthorizationServer, discoveryUrls } from './discovery.js';
export type { AuthorizationServerMetadata, DiscoveryOptions } from './discovery.js';
export { createIntrospector } from './introspection.js';
export type {
  IntrospectionCacheOptions,
  IntrospectionOptions,
  IntrospectionResponse,
  Introspector,
} from './introspection.js';
export { createJwtVerifier, DEFAULT_ALGORITHMS, looksLikeJwt } from './jwt.js';
export type { JwtVerifier, JwtVerifierOptions } from './jwt.js';
export {
  bearerChallenge,
  metadataPath,
  metadataUrl,
  PROTECTED_RESOURCE_WELL_KNOWN,
  protectedResourceMetadata,
} from './metadata.js';
export type {
  BearerChallengeOptions,
  ProtectedResourceMetadata,
  ProtectedResourceMetadataOptions,
} from './metadata.js';
// Defined in toolmodel, which this resource server and the toolkit's OAuth client share.
export { canonicalResource } from '@toolplane/toolmodel';
export { createResourceServer } from './resource-server.js';
export type {
  AuthenticateOptions,
  Caller,
  ResourceServer,
  ResourceServerOptions,
} from './resource-server.js';
export { createScopePolicy } from './scope-policy.js';
export type {
  ScopedPrompt,
  ScopedResource,
  ScopedTool,
  ScopeGrant,
  ScopePolicy,
} from './scope-policy.js';
