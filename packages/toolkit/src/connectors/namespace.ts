import { NAMESPACE_PATTERN } from '@toolplane/toolmodel';
import type { ConnectorSource } from './connector-types.js';

// Launchers whose own name says nothing about the server they start.
const LAUNCHERS = new Set([
  'node',
  'nodejs',
  'npx',
  'pnpm',
  'pnpx',
  'bunx',
  'bun',
  'deno',
  'yarn',
  'npm',
  'tsx',
  'ts-node',
  'python',
  'python3',
  'uv',
  'uvx',
  'pipx',
  'docker',
  'podman',
  'java',
  'dotnet',
  'go',
  'cargo',
  'sh',
  'bash',
]);
// Path segments that name a protocol endpoint rather than a server.
const GENERIC_SEGMENTS = new Set([
  'mcp',
  'sse',
  'api',
  'v1',
  'v2',
  'v3',
  'stream',
  'messages',
  'http',
]);
// Launcher options whose value is the next argument, not the server.
const VALUE_FLAGS = new Set([
  '--import',
  '--require',
  '-r',
  '--loader',
  '--experimental-loader',
  '--conditions',
  '-C',
  '--env-file',
  '--title',
  '-p',
  '--package',
  '--from',
  '--with',
]);
const SCRIPT_EXTENSION = /\.(?:[cm]?[jt]s|py|sh|exe|jar)$/i;

/**
 * Turns any string into a valid namespace: runs of disallowed characters become `-`, the
 * result is trimmed of `-` and cut to 64 characters; `fallback` when nothing is left.
 */
export function sanitizeNamespace(raw: string, fallback = 'server'): string {
  const cleaned = raw
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return NAMESPACE_PATTERN.test(cleaned) ? cleaned : fallback;
}

function lastPathPart(value: string): string {
  const parts = value.split(/[\\/]/).filter((part) => part.length > 0);
  return parts.at(-1) ?? value;
}

function fromCommand(command: string, args: readonly string[]): string {
  const base = lastPathPart(command).replace(SCRIPT_EXTENSION, '');
  if (!LAUNCHERS.has(base.toLowerCase())) return base;
  // `npx -y @scope/server-x@1.2`, `node dist/server.js`, `uvx mcp-server-git`: the first operand.
  const operand = args.find(
    (arg, i) =>
      !arg.startsWith('-') &&
      !VALUE_FLAGS.has(args[i - 1] ?? '') &&
      arg !== 'run' &&
      arg !== 'exec' &&
      arg !== 'dlx',
  );
  if (operand === undefined) return base;
  const withoutVersion = operand.replace(/(?<=.)@[^/]*$/, '');
  const name = lastPathPart(withoutVersion).replace(SCRIPT_EXTENSION, '');
  // `node path/to/my-server/index.js` names its folder, not `index`.
  if (/^(?:index|main|server|cli)$/i.test(name)) {
    const parts = withoutVersion
      .split(/[\\/]/)
      .filter((part) => part.length > 0 && part !== 'dist' && part !== 'build' && part !== 'src');
    return parts.at(-2) ?? name;
  }
  return name;
}

function fromUrl(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const isLocal = host === 'localhost' || /^[\d.]+$/.test(host) || host.includes(':');
  const segments = url.pathname
    .split('/')
    .filter((part) => part.length > 0 && !GENERIC_SEGMENTS.has(part.toLowerCase()));
  if (isLocal) {
    const label = host === '::1' || host.startsWith('127.') ? 'localhost' : host;
    return segments.at(-1) ?? (url.port === '' ? label : `${label}-${url.port}`);
  }
  // `api.github.com` → `github`, `mcp.linear.app` → `linear`, `example.com` → `example`.
  const labels = host.split('.');
  return labels.length >= 2 ? (labels.at(-2) ?? host) : host;
}

/**
 * The namespace a connector gets when none is given: the server's package or script name for a
 * command, the host's main label for a URL (or the last meaningful path segment on localhost),
 * sanitised to the namespace rule.
 */
export function inferNamespace(source: ConnectorSource): string {
  if (typeof source === 'string' || source instanceof URL)
    return sanitizeNamespace(fromUrl(new URL(source)));
  if ('url' in source) return sanitizeNamespace(fromUrl(new URL(source.url)));
  return sanitizeNamespace(fromCommand(source.command, source.args ?? []));
}
