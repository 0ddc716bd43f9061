// Child-process entry: the conformance fixture toolkit with its builtins unprefixed, served over
// stdio (argument `stdio`), or over Streamable HTTP on 127.0.0.1 at /mcp (argument `http`, its
// port announced as one `LISTENING <port>` line on stdout as the fixtures' servers do). It stops
// on SIGTERM or when its standard input closes.
import { BUILTIN_NAMESPACE } from '@toolplane/toolkit';
import { serveHttp } from '../http/serve.js';
import { serveStdio } from '../stdio/serve.js';
import { createConformanceToolkit } from './conformance-toolkit.js';

const options = { transparent: BUILTIN_NAMESPACE, closeToolkit: true };
let gateway: { close(): Promise<void> };
if (process.argv[2] === 'stdio') {
  gateway = await serveStdio(createConformanceToolkit(), options);
} else {
  const served = await serveHttp(createConformanceToolkit(), { ...options, port: 0 });
  process.stdout.write(`LISTENING ${served.url.port}\n`);
  gateway = served;
  process.stdin.resume();
}
const stop = (): void => {
  void gateway.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.stdin.once('end', stop);
