// @toolplane/toolkit/oauth: connectors as OAuth 2.1 clients, for the apps and CLIs that log in
// and the credential stores that keep the tokens. The main entry stays about toolkits.
export { ConnectorOAuth, createConnectorOAuth } from './connector-oauth.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the old name, kept one minor
export type { AuthRefusal } from './connector-oauth.js';
export type {
  ConnectorAuthRefusal,
  ConnectorOAuthOptions,
  LoginOptions,
  OAuthStatus,
} from './connector-oauth.js';
export {
  CredentialSealer,
  sealedCredentialStore,
  TOKEN_KEY_ENV,
  tokenKeyFromEnv,
} from './credential-sealing.js';
export type { SealedBlobStore } from './credential-sealing.js';
// One definition, shared with the oauth package's resource server.
export { canonicalResource } from '@toolplane/toolmodel';
export type { CanonicalResourceOptions } from '@toolplane/toolmodel';
export { credentialKey, MemoryCredentialStore, parseCredentialKey } from './credential-store.js';
export type {
  CredentialKeyParts,
  OAuthCredentialRecord,
  OAuthCredentialStore,
  PendingLogin,
} from './credential-store.js';
export { assertLoopbackRedirect, listenForRedirect } from './loopback-redirect.js';
export type {
  ListenForRedirectOptions,
  LoopbackRedirect,
  RedirectAnswer,
} from './loopback-redirect.js';
export { isAuthRequired } from './stored-provider.js';
export type { OAuthGrant } from './stored-provider.js';
// What an HTTP source's `oauth` provider implements: a ConnectorOAuth, or one of your own.
export type { OAuthCredentialWatch } from '../connector-types.js';
export type { TransportAuth } from '../transport/http-transport-parts.js';
