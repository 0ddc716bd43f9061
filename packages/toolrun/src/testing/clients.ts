// SDK v2 clients connected to the fixture servers, for toolrun's tests and benchmark. The
// fixtures package still connects v1 clients; these mirror its connect* helpers on the v2
// `Client` that toolrun's executor takes, against the same fixture server processes.
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  createFixtureServer,
  fixtureCommand,
  type ConnectInMemoryOptions,
  type ServerCommand,
} from '@toolplane/fixtures';

/** A connected SDK v2 client and a way to stop what it is connected to. */
export interface ConnectedClient {
  readonly client: Client;
  /** Closes the client and stops the server; resolves once a child process has exited. */
  close(): Promise<void>;
}

/** A v2 client connected to a server child process over stdio. */
export interface StdioConnection extends ConnectedClient {
  /** The child's process ID, e.g. to kill it mid-call. */
  readonly pid: number;
  /** Resolves when the child has exited, however it ended. */
  readonly exited: Promise<void>;
}

function newClient(): Client {
  return new Client({ name: 'toolrun-test-client', version: '0.0.0' });
}

/** Starts `server` (the fixture server by default) as a child process and connects over stdio. */
export async function connectStdio(
  server: ServerCommand = fixtureCommand('stdio'),
): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    stderr: 'ignore',
  });
  const client = newClient();
  const exited = new Promise<void>((resolve) => {
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      resolve();
    };
  });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the stdio server process has no PID');
  return {
    client,
    pid,
    exited,
    close: async () => {
      await client.close();
      await exited;
    },
  };
}

/** Connects a v2 client over Streamable HTTP to a server already listening at `url`. */
export async function connectHttp(url: URL): Promise<ConnectedClient> {
  const client = newClient();
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** Connects a v2 client to an in-process fixture server over the SDK's in-memory transport. */
export async function connectInMemory(
  options: ConnectInMemoryOptions = {},
): Promise<ConnectedClient> {
  const server = createFixtureServer(options.state);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = newClient();
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
