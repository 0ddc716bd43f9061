import type { Command } from 'commander';
import { resolve } from 'node:path';
import { loadPromptFile, showControls, ToolError } from '@toolplane/toolkit';
import { parseArgs } from '../args.js';
import {
  firstLine,
  lookup,
  namespaceOf,
  readValues,
  warnErrors,
  withStore,
  withToolkit,
  type CommandContext,
} from './shared.js';

// list shows prompts alone: the servers' resources are not fetched for it, nor their tools unless
// the config's tool filters are to be checked. (get keeps every list, to tell a tool's name apart.)
const PROMPTS_ONLY = { lists: ['prompts'] } as const;

/** `toolplane prompts list|get|add|rm`, under the `prompts` command. */
export function registerPrompts(prompts: Command, context: CommandContext): void {
  const { output, config } = context;
  prompts
    .command('list')
    .description('list every prompt')
    .action(async () => {
      await withToolkit(context, await config(), PROMPTS_ONLY, async ({ toolkit }) => {
        const result = await toolkit.list({ type: 'prompt', signal: context.signal });
        warnErrors(output, result.errors, toolkit);
        const items = result.prompts.map(({ namespace, name, prompt }) => ({
          id: `${namespace}:${name}`,
          namespace,
          name,
          ...(prompt.mcp.title === undefined ? {} : { title: prompt.mcp.title }),
          ...(prompt.mcp.description === undefined ? {} : { description: prompt.mcp.description }),
          arguments: (prompt.mcp.arguments ?? []).map((a) => ({
            name: a.name,
            required: a.required === true,
            ...(a.description === undefined ? {} : { description: a.description }),
          })),
        }));
        if (output.json) {
          output.data({ prompts: items, errors: result.errors });
          return;
        }
        output.table(
          ['PROMPT', 'ARGUMENTS', 'DESCRIPTION'],
          items.map((p) => [
            output.color.cyan(showControls(p.id)),
            showControls(p.arguments.map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ')),
            firstLine(p.description ?? p.title),
          ]),
          'no prompts',
        );
      });
    });
  prompts
    .command('get')
    .description('render a prompt with arguments')
    .argument('<name>', 'ns:name or a bare name')
    .argument('[args...]', 'key=value arguments; key=@- reads standard input, key=@FILE a file')
    .option('-a, --args <json>', 'arguments as a JSON object')
    .action(async (key: string, pairs: string[], options: { args?: string }) => {
      await withToolkit(
        context,
        await config(),
        { only: namespaceOf(key) },
        async ({ toolkit }) => {
          const item = await lookup(toolkit, key, context.signal);
          if (item.type !== 'prompt') {
            throw new ToolError(
              'not_found',
              `"${key}" is a ${item.type}, not a prompt; see toolplane prompts list`,
            );
          }
          const input = parseArgs({
            pairs: await readValues(context, pairs),
            schema: item.prompt.prompt?.input,
            ...(options.args === undefined ? {} : { json: options.args }),
          });
          const rendered = await item.prompt.render(input, { signal: context.signal });
          if (output.json) {
            output.data({
              prompt: `${item.namespace}:${item.name}`,
              text: rendered.text,
              messages: rendered.messages,
            });
            return;
          }
          output.result(rendered.text);
        },
      );
    });
  prompts
    .command('add')
    .description('add (or replace) a markdown prompt in the user store')
    .argument('<file>', 'a markdown file with optional YAML front matter')
    .action(async (file: string) => {
      const cfg = await config();
      const path = resolve(context.cwd, file);
      const prompt = await loadPromptFile(path, { signal: context.signal });
      await withStore(cfg, async (store) => {
        await store.putPrompt(prompt, { signal: context.signal });
      });
      if (output.json) output.data({ added: { namespace: 'user', name: prompt.name } });
      else output.say(`added prompt ${output.errColor.cyan(`user:${prompt.name}`)}`);
    });
  prompts
    .command('rm')
    .description('remove a prompt from the user store')
    .argument('<name>', 'the prompt name (user: prefix optional)')
    .action(async (key: string) => {
      const name = key.replace(/^user[:.]/, '');
      const removed = await withStore(await config(), (store) =>
        store.deletePrompt(name, { signal: context.signal }),
      );
      if (!removed)
        throw new ToolError(
          'not_found',
          `the user store has no prompt "${name}"; see toolplane prompts list`,
        );
      if (output.json) output.data({ removed: { namespace: 'user', name } });
      else output.say(`removed prompt user:${name}`);
    });
}
