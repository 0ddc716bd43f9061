import { type ElicitRequestFormParams } from '@modelcontextprotocol/client';
// A toolkit of builtins only (no SDK server) with the tools, resources, resource template and
// prompts the server scenarios of @modelcontextprotocol/conformance expect. Served with
// `serveHttp(toolkit, { transparent: 'builtin' })`, it is the conformance fixture of the tests.
import { TINY_PNG_BASE64 } from '@toolplane/fixtures';
import {
  audioContent,
  createToolkit,
  defineResourceTemplate,
  defineTool,
  embeddedResource,
  getSession,
  imageContent,
  textContent,
  textResource,
  toolResult,
  type DefinedTool,
  type Prompt,
  type Resource,
  type Toolkit,
} from '@toolplane/toolkit';

/** A WAV file of one silent sample, for `test_audio_content`. */
const TINY_WAV_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==';

const noInput = { type: 'object', properties: {} } as const;

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A tool that asks the caller's user with `params` and reports what came back. */
function elicitingTool(
  name: string,
  description: string,
  params: (input: Record<string, unknown>) => ElicitRequestFormParams,
  prefix: string,
  input: Record<string, unknown> = noInput,
): DefinedTool {
  return defineTool({
    name,
    description,
    input,
    run: async (args) => {
      const answer = await getSession().elicit(params(args));
      return `${prefix}action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
    },
  });
}

const tools: DefinedTool[] = [
  defineTool({
    name: 'test_simple_text',
    description: 'Returns a simple text.',
    input: noInput,
    run: () => 'This is a simple text response for testing.',
  }),
  defineTool({
    name: 'test_image_content',
    description: 'Returns a PNG image.',
    input: noInput,
    run: () => toolResult(imageContent(TINY_PNG_BASE64, 'image/png')),
  }),
  defineTool({
    name: 'test_audio_content',
    description: 'Returns a WAV sound.',
    input: noInput,
    run: () => toolResult(audioContent(TINY_WAV_BASE64, 'audio/wav')),
  }),
  defineTool({
    name: 'test_embedded_resource',
    description: 'Returns an embedded text resource.',
    input: noInput,
    run: () =>
      toolResult(
        embeddedResource(
          textResource('embedded-resource', 'This is an embedded resource content.', {
            uri: 'test://embedded-resource',
          }),
        ),
      ),
  }),
  defineTool({
    name: 'test_multiple_content_types',
    description: 'Returns text, an image and a resource.',
    input: noInput,
    run: () =>
      toolResult([
        textContent('Multiple content types test:'),
        imageContent(TINY_PNG_BASE64, 'image/png'),
        embeddedResource(
          textResource('mixed-content-resource', JSON.stringify({ test: 'data', value: 123 }), {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
          }),
        ),
      ]),
  }),
  defineTool({
    name: 'test_tool_with_logging',
    description: 'Sends three log messages while it runs.',
    input: noInput,
    run: async (_, { signal }) => {
      const { log } = getSession();
      await log('info', 'Tool execution started');
      await pause(50, signal);
      await log('info', 'Tool processing data');
      await pause(50, signal);
      await log('info', 'Tool execution completed');
      return 'Tool with logging executed successfully';
    },
  }),
  defineTool({
    name: 'test_error_handling',
    description: 'Always fails.',
    input: noInput,
    run: () =>
      toolResult(textContent('This tool intentionally returns an error for testing'), {
        isError: true,
      }),
  }),
  defineTool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100.',
    input: noInput,
    run: async (_, { signal, progress }) => {
      for (const done of [0, 50, 100]) {
        if (done > 0) await pause(50, signal);
        progress({ progress: done, total: 100 });
      }
      return 'Tool with progress executed successfully';
    },
  }),
  defineTool({
    name: 'test_sampling',
    description: "Asks the client's model to answer `prompt`.",
    input: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    run: async ({ prompt }) => {
      const result = await getSession().createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: String(prompt) } }],
        maxTokens: 100,
      });
      const blocks = Array.isArray(result.content) ? result.content : [result.content];
      const answer = blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
      return `LLM response: ${answer}`;
    },
  }),
  elicitingTool(
    'test_elicitation',
    'Asks the user for a username and an email.',
    ({ message }) => ({
      message: String(message),
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      },
    }),
    'User response: ',
    { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  ),
  elicitingTool(
    'test_elicitation_sep1034_defaults',
    'Asks the user for values of every primitive type, each with a default.',
    () => ({
      message: 'Please confirm or change these values',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'John Doe' },
          age: { type: 'integer', default: 30 },
          score: { type: 'number', default: 95.5 },
          status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', default: true },
        },
      },
    }),
    'Elicitation completed: ',
  ),
  elicitingTool(
    'test_elicitation_sep1330_enums',
    'Asks the user to choose from every kind of enum.',
    () => ({
      message: 'Please choose',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      },
    }),
    'Elicitation completed: ',
  ),
  defineTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    input: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    run: (input) => JSON.stringify(input),
  }),
];

const resources: Resource[] = [
  textResource('static-text', 'This is the content of the static text resource.', {
    uri: 'test://static-text',
    description: 'A static text resource.',
  }),
  {
    uri: 'test://static-binary',
    name: 'static-binary',
    description: 'A static PNG resource.',
    mimeType: 'image/png',
    blob: TINY_PNG_BASE64,
  },
  textResource('watched-resource', 'Watched resource content.', {
    uri: 'test://watched-resource',
    description: 'A resource to subscribe to.',
  }),
];

const prompts: Prompt[] = [
  {
    name: 'test_simple_prompt',
    description: 'A prompt without arguments.',
    template: 'This is a simple prompt for testing.',
  },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two arguments.',
    input: {
      type: 'object',
      properties: {
        arg1: { type: 'string', description: 'First test argument', examples: ['paris', 'park'] },
        arg2: { type: 'string', description: 'Second test argument' },
      },
      required: ['arg1', 'arg2'],
    },
    template: "Prompt with arguments: arg1='{{ arg1 }}', arg2='{{ arg2 }}'",
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt embedding a resource.',
    input: {
      type: 'object',
      properties: { resourceUri: { type: 'string', description: 'URI of the resource' } },
      required: ['resourceUri'],
    },
    messages: [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: {
            uri: '{{ resourceUri }}',
            mimeType: 'text/plain',
            text: 'Embedded resource content for testing.',
          },
        },
      },
    ],
    template: 'Please process the embedded resource above.',
  },
  {
    name: 'test_prompt_with_image',
    description: 'A prompt with an image.',
    messages: [
      { role: 'user', content: { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' } },
    ],
    template: 'Please analyze the image above.',
  },
];

/**
 * A toolkit whose builtins are what the conformance server scenarios call: `test_*` tools
 * (rich content, logging, progress, sampling, elicitation), `test://` resources and the
 * `test://template/{id}/data` template, and `test_*` prompts with arguments, images and
 * embedded resources.
 */
export function createConformanceToolkit(): Toolkit {
  return createToolkit({
    tools,
    resources,
    prompts,
    resourceTemplates: [
      defineResourceTemplate({
        uriTemplate: 'test://template/{id}/data',
        name: 'template',
        description: 'Data for an ID.',
        mimeType: 'application/json',
        read: ({ id }) => ({
          id: String(id),
          templateTest: true,
          data: `Data for ID: ${String(id)}`,
        }),
        complete: { id: (value) => ['123', '456'].filter((id) => id.startsWith(value)) },
      }),
    ],
  });
}
