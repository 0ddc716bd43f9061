// Child-process entry for tests and benchmarks: a toolkit with the MCP servers named in the JSON
// argument as connectors, served by the gateway over stdio.
import { createToolkit, type ConnectorSource } from '@toolplane/toolkit';
import { serveStdio } from '../stdio.js';
import type { GatewayOptions } from '../server.js';

interface Config {
  readonly upstreams: readonly { namespace: string; source: ConnectorSource }[];
  readonly options?: GatewayOptions;
}

const config = JSON.parse(process.argv[2] ?? '{"upstreams":[]}') as Config;
const toolkit = createToolkit();
for (const { namespace, source } of config.upstreams) toolkit.addConnector(source, { namespace });
const running = toolkit.run();
await toolkit.ready();
const served = await serveStdio(toolkit, { ...config.options, closeToolkit: true });
process.once('SIGTERM', () => {
  void served.close().then(() => process.exit(0));
});
await running;
