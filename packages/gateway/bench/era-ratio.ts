// The 2026-07-28 stdio call's CPU against the 2025 session call's, in the gateway child, read
// steadier than hop-cpu.ts reads it on a loaded machine: both eras served by children of the same
// build in one run, taking turns in blocks, the ratio taken block by block and its median kept.
// With BASE=<folder> (a copy made by bench/base-copy.sh) the same two children of that build run
// in the same rounds too, so a change's effect on each era is read against its base. Not part
// of `pnpm bench`; run it by hand (built first):
//   [BASE=<folder>] [ROUNDS=20] node --import tsx bench/era-ratio.ts
import { loadavg } from 'node:os';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand } from '@toolplane/fixtures';
import { gatewayCommand } from '../src/testing/gateway-command.js';
import { cpuReader, probed } from './cpu-reader.js';
import { median } from './measure.js';

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const BLOCK = 500;
const WARMUP = 3_000;
const BASE = process.env.BASE;
const command = gatewayCommand(
  [{ namespace: 'fx', source: fixtureCommand('stdio') }],
  {},
  'stdio',
  {
    built: true,
    ajv: true,
  },
);
const entry = fileURLToPath(new URL('../src/testing/serve-gateway.ts', import.meta.url));

interface Child {
  readonly label: string;
  readonly client: Client;
  readonly cpu: () => Promise<number>;
  readonly perCall: number[];
}

async function open(era: '2025' | '2026', base: string | undefined): Promise<Child> {
  const args =
    base === undefined
      ? command.args
      : command.args.map((arg) =>
          arg === entry ? `${base}/gateway/src/testing/serve-gateway.ts` : arg,
        );
  const transport = new StdioClientTransport({
    command: command.command,
    args: probed({ command: command.command, args }),
    stderr: 'pipe',
  });
  const client = new Client(
    { name: 'era-ratio', version: '0' },
    era === '2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(transport);
  return {
    label: `${base === undefined ? 'this build' : 'base'} ${era}`,
    client,
    cpu: cpuReader(transport.pid as number, transport.stderr as Readable),
    perCall: [],
  };
}

const children = [
  ...(BASE === undefined ? [] : [await open('2025', BASE), await open('2026', BASE)]),
  await open('2025', undefined),
  await open('2026', undefined),
];
const call = (child: Child) =>
  child.client.callTool({ name: 'fx__echo', arguments: { text: 'hello' } });
for (const child of children) for (let i = 0; i < WARMUP; i++) await call(child);
for (let round = 0; round < ROUNDS; round++) {
  for (const child of children) {
    const before = await child.cpu();
    for (let i = 0; i < BLOCK; i++) await call(child);
    child.perCall.push(((await child.cpu()) - before) / BLOCK);
  }
}
for (const child of children) await child.client.close();

const ratio = (a: Child, b: Child): string =>
  `${median(a.perCall.map((value, i) => value / (b.perCall[i] as number))).toFixed(3)}×`;
console.log(
  `\nera CPU ratio, stdio (load ${loadavg()[0]?.toFixed(2) ?? '?'}; ${String(ROUNDS)} rounds of ${String(BLOCK)} calls a child)`,
);
for (const child of children)
  console.log(`  ${child.label}: ${median(child.perCall).toFixed(1)} µs a call`);
const [a, b, c, d] = children as [Child, Child, Child?, Child?];
if (c === undefined || d === undefined) console.log(`  2026 / 2025: ${ratio(b, a)}`);
else
  console.log(
    `  base 2026 / 2025: ${ratio(b, a)}; this build 2026 / 2025: ${ratio(d, c)}; this build / base: 2025 ${ratio(c, a)}, 2026 ${ratio(d, b)}`,
  );
