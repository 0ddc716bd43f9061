import { createPrivateKey, type KeyObject } from 'node:crypto';
import {
  createPrivateKeyJwtAuth,
  type AddClientAuthentication,
} from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';

/** What {@link privateKeyJwt} reads of a connector's OAuth options. */
export interface PrivateKeyJwtOptions {
  readonly server: string;
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  readonly privateKey?: string | undefined;
  readonly privateKeyAlg?: string | undefined;
}

/** The JWS algorithm a private key of this type signs with by default. */
function algorithmOf(key: KeyObject): string | undefined {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType !== 'ec') return undefined;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve === 'prime256v1'
    ? 'ES256'
    : curve === 'secp384r1'
      ? 'ES384'
      : curve === 'secp521r1'
        ? 'ES512'
        : undefined;
}

/**
 * The client authentication of a `private_key_jwt` client (the SDK's assertion signer), its key
 * checked now so that a bad one fails at start-up, never echoed.
 */
export function privateKeyJwt(options: PrivateKeyJwtOptions): AddClientAuthentication {
  const { server, clientId, clientSecret, privateKey = '' } = options;
  const fail = (why: string) =>
    new ToolError('invalid_config', `server "${server}": the privateKey ${why}`);
  if (clientId === undefined) throw fail('needs a clientId (the assertion names it)');
  if (clientSecret !== undefined) throw fail('and a clientSecret exclude each other: give one');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: privateKey, format: 'pem' });
  } catch {
    throw fail('is not a PEM private key');
  }
  const alg = options.privateKeyAlg ?? algorithmOf(key);
  if (alg === undefined) throw fail(`is a ${String(key.asymmetricKeyType)} key: set privateKeyAlg`);
  // The SDK's signer reads PKCS#8 PEM; a PKCS#1 or SEC1 key is converted once here.
  const pkcs8 = key.export({ type: 'pkcs8', format: 'pem' }).toString();
  return createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey: pkcs8, alg });
}
