import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readResource, ToolError, withUri } from '@toolplane/toolkit';
import {
  firstLine,
  formatBytes,
  warnErrors,
  withStore,
  withToolkit,
  type CommandContext,
} from './shared.js';

/** `toolplane resources list|read|add|rm`. */
export function registerResources(program: Command, context: CommandContext): void {
  const { output, config } = context;
  const resources = program
    .command('resources')
    .description('list, read, add and remove resources');
  resources
    .command('list')
    .description('list every resource')
    .action(async () => {
      await withToolkit(context, await config(), {}, async ({ toolkit }) => {
        const result = await toolkit.list({ type: 'resource', signal: context.signal });
        warnErrors(output, result.errors);
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
            output.color.cyan(r.uri),
            r.namespace,
            r.mimeType ?? '',
            r.size === undefined ? '' : formatBytes(r.size),
            firstLine(r.description ?? r.title),
          ]),
          'no resources',
        );
      });
    });
  resources
    .command('read')
    .description("print a resource's contents")
    .argument('<uri>', 'the URI (uri#ns to pick a namespace) or a name')
    .option('-o, --out <file>', 'write the contents to a file (for binary resources)')
    .action(async (key: string, options: { out?: string }) => {
      await withToolkit(context, await config(), {}, async ({ toolkit }) => {
        const found = await toolkit.readResource(key, { signal: context.signal });
        if (options.out !== undefined) {
          const path = resolve(context.cwd, options.out);
          await writeFile(
            path,
            found.blob === undefined ? found.text : Buffer.from(found.blob, 'base64'),
          );
          if (output.json) output.data({ uri: found.uri, written: path });
          else output.say(`wrote ${found.uri} to ${path}`);
          return;
        }
        if (output.json) {
          output.data(found);
          return;
        }
        if (found.text !== undefined) output.out(found.text);
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
