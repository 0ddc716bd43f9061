// The one oidc-provider test server lives in @toolplane/fixtures; this subpath keeps the name the
// resource server's tests (here, in the gateway and in the CLI) import it by.
export { startAuthorizationServer } from '@toolplane/fixtures/oauth';
export type {
  TestAuthorizationServer,
  TestAuthorizationServerOptions,
  TestClient,
} from '@toolplane/fixtures/oauth';
