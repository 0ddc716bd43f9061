import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { entryArgs } from '@toolplane/fixtures';
import type { ConnectorSource, ToolkitOptions } from '@toolplane/toolkit';
import type { GatewayOptions } from '../options.js';

const require = createRequire(import.meta.url);
const entry = fileURLToPath(new URL('./serve-gateway.ts', import.meta.url));

/**
 * The command that runs a gateway in a child process, in front of `upstreams`: from the sources
 * (the test run's prebuilt bundle of them, see `entryArgs`), or with `built` from the packages' dist folders (as users run it; benchmarks want that, since
 * tsx adds a naming helper around every closure); with `ajv`, calls are validated by
 * @toolplane/validator-ajv, as the CLI's gateway validates them; `connectorDefaults` go to every
 * connector (JSON only); `approval` is the toolkit's approval policy (JSON only).
 */
export function gatewayCommand(
  upstreams: readonly { namespace: string; source: ConnectorSource }[],
  options: GatewayOptions = {},
  mode: 'stdio' | 'http' = 'stdio',
  {
    built = false,
    ajv = false,
    connectorDefaults,
    approval,
  }: {
    readonly built?: boolean;
    readonly ajv?: boolean;
    readonly connectorDefaults?: ToolkitOptions['connectorDefaults'];
    readonly approval?: ToolkitOptions['approval'];
  } = {},
): { command: string; args: string[] } {
  const config = JSON.stringify({
    upstreams,
    options,
    http: mode === 'http',
    ajv,
    connectorDefaults,
    approval,
  });
  if (!built) return { command: process.execPath, args: [...entryArgs(entry), config] };
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  return { command: process.execPath, args: ['--import', tsx, entry, config] };
}
