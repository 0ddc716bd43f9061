import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  defineResourceTemplate,
  readResource,
  showControls,
  ToolError,
  validateResource,
  withUri,
  type Resource,
} from '@toolplane/toolkit';
import type { OpenToolkit } from '../open.js';
import {
  firstLine,
  formatBytes,
  unavailableInstead,
  warnErrors,
  withStore,
  withToolkit,
  type CommandContext,
} from './shared.js';

// list and templates show resources alone: the servers' prompts are not fetched for them, nor
// their tools unless the config's tool filters are to be checked. (read keeps every list.)
const RESOURCES_ONLY = { lists: ['resources'] } as const;

/** `toolplane resources list|templates|read|add|rm`, under the `resources` command. */
export function registerResources(resources: Command, context: CommandContext): void {
  const { output, config } = context;
  resources
    .command('list')
    .description('list every resource')
    .action(async () => {
      await withToolkit(context, await config(), RESOURCES_ONLY, async ({ toolkit }) => {
        const result = await toolkit.list({ type: 'resource', signal: context.signal });
        warnErrors(output, result.errors, toolkit);
        const items = result.resources.map(({ namespace, resource }) => ({
          namespace,
          ...resource,
        }));
        if (output.json) {
          output.data({ resources: items, errors: result.errors });
          return;
        }
        output.table(
          ['URI', 'NAMESPACE', 'TYPE', 'SIZE', 'DESCRIPTION'],
          items.map((r) => [
            output.color.cyan(showControls(r.uri)),
            r.namespace,
            showControls(r.mimeType ?? ''),
            r.size === undefined ? '' : formatBytes(r.size),
            firstLine(r.description ?? r.title),
          ]),
          'no resources',
        );
      });
    });
  resources
    .command('templates')
    .description('list every resource template (resources read reads the URIs they match)')
    .action(async () => {
      await withToolkit(context, await config(), RESOURCES_ONLY, ({ toolkit }) => {
        const items = toolkit.resourceTemplates().map(({ namespace, template }) => ({
          namespace,
          ...template,
        }));
        if (output.json) {
          output.data({ resourceTemplates: items });
          return;
        }
        output.table(
          ['URI TEMPLATE', 'NAMESPACE', 'TYPE', 'DESCRIPTION'],
          items.map((t) => [
            output.color.cyan(showControls(t.uriTemplate)),
            t.namespace,
            showControls(t.mimeType ?? ''),
            firstLine(t.description ?? t.title ?? t.name),
          ]),
          'no resource templates',
        );
      });
    });
  resources
    .command('read')
    .description("print a resource's contents (a listed one, or a URI a resource template matches)")
    .argument('<uri>', 'the URI (uri#ns to pick a namespace) or a name')
    .option('-o, --out <file>', 'write the contents to a file (for binary resources)')
    .action(async (key: string, options: { out?: string }) => {
      await withToolkit(context, await config(), {}, async ({ toolkit }) => {
        const found = await read(toolkit, key, context.signal);
        if (options.out !== undefined) {
          const path = resolve(context.cwd, options.out);
          await writeFile(
            path,
            found.blob === undefined ? found.text : Buffer.from(found.blob, 'base64'),
          ).catch((error: unknown) => {
            throw new ToolError(
              'invalid_argument',
              `--out ${options.out}: cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
              { cause: error },
            );
          });
          if (output.json) output.data({ uri: found.uri, written: path });
          else output.say(`wrote ${found.uri} to ${path}`);
          return;
        }
        if (output.json) {
          output.data(found);
          return;
        }
        if (found.text !== undefined) output.result(found.text);
        else
          throw new ToolError(
            'invalid_argument',
            `${found.uri} is binary (${found.mimeType ?? 'unknown type'}, ${formatBytes(Buffer.from(found.blob, 'base64').length)}); use --out FILE or --json`,
          );
      });
    });
  resources
    .command('add')
    .description('add (or replace) a file as a resource in the user store')
    .argument('<file>', 'any file: text is kept as text, anything else as bytes')
    .option('--uri <uri>', 'its URI (default toolplane://resources/<name>)')
    .option('--name <name>', 'its name (default: from the file name)')
    .option('--description <text>', 'what it is, for people and models')
    .action(
      async (file: string, options: { uri?: string; name?: string; description?: string }) => {
        const cfg = await config();
        const read = await readResource(resolve(context.cwd, file), {
          signal: context.signal,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.description === undefined ? {} : { description: options.description }),
        });
        const found = withUri(read, options.uri ?? `toolplane://resources/${read.name}`);
        const info = await withStore(cfg, (store) =>
          store.putResource(found, { signal: context.signal }),
        );
        if (output.json) output.data({ added: { namespace: 'user', ...info } });
        else
          output.say(
            `added resource ${output.errColor.cyan(info.uri)} (${formatBytes(info.size ?? 0)})`,
          );
      },
    );
  resources
    .command('rm')
    .description('remove a resource from the user store')
    .argument('<uri>', 'its URI')
    .action(async (uri: string) => {
      const removed = await withStore(await config(), (store) =>
        store.deleteResource(uri, { signal: context.signal }),
      );
      if (!removed)
        throw new ToolError(
          'not_found',
          `the user store has no resource "${uri}"; see toolplane resources list`,
        );
      if (output.json) output.data({ removed: { namespace: 'user', uri } });
      else output.say(`removed resource ${uri}`);
    });
}

/**
 * Reads a listed resource, a builtin template's URI (the toolkit reads both), or else a URI one
 * of the connected servers' resource templates matches, as the gateway serves it.
 *
 * @throws {ToolError} `not_found` when nothing lists or matches it; `connector_unavailable` for
 * `uri#ns` of a server that is not connected.
 */
async function read(
  toolkit: OpenToolkit['toolkit'],
  key: string,
  signal: AbortSignal,
): Promise<Resource> {
  try {
    return await toolkit.readResource(key, { signal });
  } catch (error) {
    if (!ToolError.isInstance(error) || error.code !== 'not_found') throw error;
    const hash = key.lastIndexOf('#');
    const uri = hash < 0 ? key : key.slice(0, hash);
    const namespace = hash < 0 ? undefined : key.slice(hash + 1);
    const match = toolkit
      .resourceTemplates()
      .find(
        (t) =>
          (namespace === undefined || t.namespace === namespace) &&
          matches(t.template.uriTemplate, uri),
      );
    const client = match === undefined ? undefined : toolkit.connector(match.namespace)?.client;
    if (match === undefined || client === undefined) throw unavailableInstead(toolkit, key, error);
    let result: Awaited<ReturnType<typeof client.readResource>>;
    try {
      result = await client.readResource({ uri }, { signal });
    } catch (cause) {
      throw new ToolError(
        'not_found',
        `${match.namespace} could not read ${uri} (template ${match.template.uriTemplate}): ${(cause as Error).message}`,
        { cause },
      );
    }
    const contents = result.contents.find((c) => c.uri === uri) ?? result.contents[0];
    if (contents === undefined) {
      throw new ToolError('not_found', `${match.namespace} returned no contents for ${uri}`);
    }
    return validateResource({
      ...contents,
      uri,
      name: /^[A-Za-z0-9_.-]{1,128}$/.test(match.name) ? match.name : 'resource',
      ...(match.template.description === undefined
        ? {}
        : { description: match.template.description }),
    });
  }
}

/** Whether an RFC 6570 `uriTemplate` matches `uri`, by the toolkit's own template matching. */
function matches(uriTemplate: string, uri: string): boolean {
  try {
    return (
      defineResourceTemplate({ uriTemplate, name: 'template', read: () => '' }).match(uri) !==
      undefined
    );
  } catch {
    return false; // a template the toolkit cannot parse matches nothing
  }
}
