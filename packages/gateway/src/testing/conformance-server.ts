// Child-process entry: the conformance fixture toolkit served over Streamable HTTP on 127.0.0.1,
// its builtins unprefixed at /mcp, its port announced as one `LISTENING <port>` line on stdout as
// the fixtures' servers do. It stops on SIGTERM or when its standard input closes.
import { BUILTIN_NAMESPACE } from '@toolplane/toolkit';
import { serveHttp } from '../http.js';
import { createConformanceToolkit } from './conformance-toolkit.js';

const gateway = await serveHttp(createConformanceToolkit(), {
  port: 0,
  transparent: BUILTIN_NAMESPACE,
  closeToolkit: true,
});
process.stdout.write(`LISTENING ${gateway.url.port}\n`);
const stop = (): void => {
  void gateway.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.stdin.once('end', stop);
process.stdin.resume();
