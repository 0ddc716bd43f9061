// Child-process entry for tests and benchmarks: a toolkit with the MCP servers named in the JSON
// argument as connectors, served by the gateway over stdio, or over Streamable HTTP on 127.0.0.1
// when `http` is set (announced as one `LISTENING <url>` line on stdout). The packages are
// imported by name, so the `@toolplane/source` condition picks sources and its absence the build.
import { serveHttp, serveStdio, type GatewayOptions } from '@toolplane/gateway';
import { createToolkit, type ConnectorSource, type ToolkitOptions } from '@toolplane/toolkit';
import { createAjvValidator } from '@toolplane/validator-ajv';

interface Config {
  readonly upstreams: readonly { namespace: string; source: ConnectorSource }[];
  readonly options?: GatewayOptions;
  readonly http?: boolean;
  /** Validate with @toolplane/validator-ajv, as the CLI's gateway does. */
  readonly ajv?: boolean;
  /** Every connector's options (JSON only), e.g. a short era probe bound. */
  readonly connectorDefaults?: ToolkitOptions['connectorDefaults'];
  /** The toolkit's approval policy (JSON only: asks the calling client by elicitation). */
  readonly approval?: ToolkitOptions['approval'];
}

const config = JSON.parse(process.argv[2] ?? '{"upstreams":[]}') as Config;
const toolkit = createToolkit({
  ...(config.ajv === true ? { validator: createAjvValidator() } : {}),
  ...(config.connectorDefaults === undefined
    ? {}
    : { connectorDefaults: config.connectorDefaults }),
  ...(config.approval === undefined ? {} : { approval: config.approval }),
});
for (const { namespace, source } of config.upstreams) toolkit.addConnector(source, { namespace });
const running = toolkit.run();
await toolkit.ready();
let served: { close(): Promise<void> };
if (config.http === true) {
  const gateway = await serveHttp(toolkit, { ...config.options, port: 0, closeToolkit: true });
  process.stdout.write(`LISTENING ${gateway.url.href}\n`);
  served = gateway;
} else {
  served = await serveStdio(toolkit, { ...config.options, closeToolkit: true });
}
process.once('SIGTERM', () => {
  void served.close().then(() => process.exit(0));
});
await running;
