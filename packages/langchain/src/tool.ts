import {
  CallbackManager,
  parseCallbackConfigArg,
  type CallbackManagerForToolRun,
} from '@langchain/core/callbacks/manager';
import { ToolMessage, type ToolCall } from '@langchain/core/messages';
import { ensureConfig, mergeConfigs } from '@langchain/core/runnables';
import {
  StructuredTool,
  type ContentAndArtifact,
  type StructuredToolCallInput,
  type ToolParams,
  type ToolReturnType,
  type ToolRunnableConfig,
} from '@langchain/core/tools';
import type { JSONSchema } from '@langchain/core/utils/json_schema';
import { optionKeys, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';
import type { ProgressEvent } from '@toolplane/toolrun';
import { asToolError, joinOptionKeys, type SourceCallOptions } from '@toolplane/adapter-kit';
import {
  contentOf,
  fromError,
  MESSAGE_CONTENT_OPTION_KEYS,
  messageContentOf,
  type MessageBlock,
  type MessageContent,
  type MessageContentOptions,
  type ToolplaneArtifact,
} from './results.js';

/** The name of the custom event each MCP progress report of a running tool is sent as. */
export const PROGRESS_EVENT = 'toolplane_progress';

/** An MCP progress report of a running tool, as callbacks receive it. */
export interface ToolProgress {
  readonly toolId: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * How a {@link ToolplaneTool} runs a call: usually through a toolplane source, its result made an
 * artifact with `toLangChainResult`. A thrown `ToolError` becomes an error result, but `cancelled`.
 */
export type ToolRun = (
  input: Record<string, unknown>,
  options: SourceCallOptions,
) => Promise<ToolplaneArtifact>;

/** What a {@link ToolplaneTool} is made of. */
export interface ToolplaneToolFields extends MessageContentOptions {
  /** The provider-legal name the model calls the tool by. */
  readonly name: string;
  readonly description: string;
  /** The tool's JSON Schema, given to the model as it is and never validated by LangChain. */
  readonly schema: JSONSchema;
  /** The canonical toolplane ID the calls go to. */
  readonly toolId: string;
  readonly run: ToolRun;
  /**
   * A failure (the tool's `isError` result, or toolplane's error such as `validation` or
   * `timeout`) is a `ToolMessage` with `status: 'error'` the model reads (default), or, with
   * `true`, thrown as a `ToolError` so an agent's own error handling takes it. A cancelled call is
   * always thrown.
   */
  readonly throwOnError?: boolean;
  /** Sent with every call as its `_meta`. */
  readonly meta?: Record<string, unknown>;
  readonly metadata?: ToolParams['metadata'];
}

/** Every key of {@link ToolplaneToolFields}. */
const FIELD_KEYS = joinOptionKeys(
  MESSAGE_CONTENT_OPTION_KEYS,
  optionKeys<Omit<ToolplaneToolFields, keyof MessageContentOptions>>({
    name: true,
    description: true,
    schema: true,
    toolId: true,
    run: true,
    throwOnError: true,
    meta: true,
    metadata: true,
  }),
);

type Args = Record<string, unknown>;

function isToolCall(value: unknown): value is ToolCall {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'tool_call'
  );
}

/**
 * A toolplane tool as a LangChain structured tool (`responseFormat: 'content_and_artifact'`):
 * invoked with a model's tool call it answers a `ToolMessage` whose content is what the model
 * reads and whose artifact is the whole result ({@link ToolplaneArtifact}), with `status: 'error'`
 * when the call failed. Arguments are validated once, by the toolplane runner, not by LangChain.
 * The RunnableConfig's `signal` (and `timeout`) cancels the call upstream; callbacks hear
 * `handleToolStart`, `handleToolEnd` or `handleToolError`, and each MCP progress report as
 * `handleToolEvent` and as the custom event {@link PROGRESS_EVENT}.
 */
export class ToolplaneTool extends StructuredTool<JSONSchema, Args, Args, ContentAndArtifact> {
  static override lc_name(): string {
    return 'ToolplaneTool';
  }

  override name: string;
  override description: string;
  override schema: JSONSchema;
  /** The canonical toolplane ID the calls go to. */
  readonly toolId: string;
  readonly #fields: ToolplaneToolFields;
  readonly #content: MessageContent;

  /**
   * @throws {ToolError} `invalid_argument` for a field it does not take (a misspelt
   * `throwOnError` was ignored), a `run` that is not a function, or a `media` or
   * `maxOutputChars` it cannot use.
   */
  constructor(fields: ToolplaneToolFields) {
    refuseUnknownOptions(fields, FIELD_KEYS, 'ToolplaneTool');
    if (typeof fields.run !== 'function') {
      throw new ToolError('invalid_argument', 'ToolplaneTool: run must be a function');
    }
    const content = messageContentOf(fields, 'ToolplaneTool');
    super({
      responseFormat: 'content_and_artifact',
      ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
    });
    this.name = fields.name;
    this.description = fields.description;
    this.schema = fields.schema;
    this.toolId = fields.toolId;
    this.#fields = fields;
    this.#content = content;
  }

  /**
   * Runs the tool with a model's tool call (answering a `ToolMessage`) or plain arguments
   * (answering the content alone), as LangChain's own `invoke` does, but through {@link call}
   * whatever that does in a later `@langchain/core`.
   *
   * @throws {ToolError} `cancelled` when the config's signal aborts the call; with
   * `throwOnError`, the call's failure.
   */
  override invoke<
    TInput extends StructuredToolCallInput<JSONSchema, Args>,
    TConfig extends ToolRunnableConfig | undefined,
  >(input: TInput, config?: TConfig): Promise<ToolReturnType<TInput, TConfig, ContentAndArtifact>> {
    const merged: ToolRunnableConfig = ensureConfig(mergeConfigs(this.defaultConfig, config));
    // The tool call's ID goes straight to the run, not into a copy of the config.
    return this.#call(input, merged, isToolCall(input) ? input.id : merged.toolCall?.id) as Promise<
      ToolReturnType<TInput, TConfig, ContentAndArtifact>
    >;
  }

  /**
   * Runs the tool as `invoke` does, skipping LangChain's own JSON Schema validation: the runner
   * validates, and tells the model what was wrong.
   *
   * @throws {ToolError} `cancelled` when the config's signal aborts the call; with
   * `throwOnError`, the call's failure.
   */
  override call<
    TArg extends StructuredToolCallInput<JSONSchema, Args>,
    TConfig extends ToolRunnableConfig | undefined,
  >(arg: TArg, configArg?: TConfig): Promise<ToolReturnType<TArg, TConfig, ContentAndArtifact>> {
    const config: ToolRunnableConfig = parseCallbackConfigArg(configArg);
    return this.#call(arg, config, isToolCall(arg) ? arg.id : config.toolCall?.id) as Promise<
      ToolReturnType<TArg, TConfig, ContentAndArtifact>
    >;
  }

  async #call(
    arg: unknown,
    config: ToolRunnableConfig,
    toolCallId: string | undefined,
  ): Promise<string | MessageBlock[] | ToolMessage> {
    const input: unknown = isToolCall(arg) ? arg.args : arg;
    const manager = CallbackManager.configure(
      config.callbacks,
      this.callbacks,
      config.tags,
      this.tags,
      config.metadata,
      this.metadata,
      { verbose: this.verbose },
    );
    const runManager = await manager?.handleToolStart(
      this.toJSON(),
      typeof input === 'object' && input !== null && !Array.isArray(input)
        ? (input as Args)
        : JSON.stringify(input),
      config.runId,
      undefined,
      undefined,
      undefined,
      config.runName ?? this.name,
      toolCallId,
    );
    const progress =
      runManager === undefined ? undefined : new ProgressRelay(runManager, this.toolId);
    let artifact: ToolplaneArtifact;
    try {
      artifact = await this.#run(input, progress, config.signal);
      await progress?.settled();
      if (artifact.isError === true && this.#fields.throwOnError === true) {
        throw new ToolError(
          (artifact.code as ToolError['code'] | undefined) ?? 'execution',
          contentOf(artifact, { maxOutputChars: 2_000, media: 'artifact' }) as string,
          { toolId: this.toolId, cause: artifact },
        );
      }
    } catch (error) {
      await progress?.settled();
      await runManager?.handleToolError(error);
      throw error;
    }
    const content = contentOf(artifact, this.#content);
    let output: string | MessageBlock[] | ToolMessage = content;
    if (toolCallId !== undefined) {
      const fields: ConstructorParameters<typeof ToolMessage>[0] = {
        status: artifact.isError === true ? 'error' : 'success',
        content,
        artifact,
        tool_call_id: toolCallId,
        name: this.name,
      };
      if (this.metadata !== undefined) fields.metadata = this.metadata;
      output = new ToolMessage(fields);
    }
    await runManager?.handleToolEnd(output);
    return output;
  }

  protected async _call(
    arg: Args,
    runManager?: CallbackManagerForToolRun,
    parentConfig?: ToolRunnableConfig,
  ): Promise<ContentAndArtifact> {
    const progress =
      runManager === undefined ? undefined : new ProgressRelay(runManager, this.toolId);
    const artifact = await this.#run(arg, progress, parentConfig?.signal);
    await progress?.settled();
    return [contentOf(artifact, this.#content), artifact];
  }

  /** The call through toolplane, its failures (but cancellation) as error artifacts. */
  async #run(
    input: unknown,
    progress: ProgressRelay | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ToolplaneArtifact> {
    const { toolId } = this;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return fromError(
        toolId,
        new ToolError(
          'validation',
          `arguments must be a JSON object, not ${JSON.stringify(input)}`,
          {
            toolId,
          },
        ),
      );
    }
    const options: { -readonly [K in keyof SourceCallOptions]: SourceCallOptions[K] } = {};
    if (signal !== undefined) options.signal = signal;
    if (this.#fields.meta !== undefined) options.meta = this.#fields.meta;
    // Only with a listener: the runner's progress plumbing costs on every call.
    if (progress !== undefined) options.onProgress = progress.listener;
    try {
      return await this.#fields.run(input as Args, options);
    } catch (thrown) {
      const error = asToolError(thrown, toolId);
      if (error.code === 'cancelled') throw error;
      return fromError(toolId, error);
    }
  }
}

/**
 * Tells a run's callbacks each progress report, in order, without holding the call up; the
 * run's end waits for {@link settled}, so no report arrives after it.
 */
class ProgressRelay {
  #chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly runManager: CallbackManagerForToolRun,
    private readonly toolId: string,
  ) {}

  readonly listener = (event: ProgressEvent): void => {
    const progress: ToolProgress = {
      toolId: this.toolId,
      progress: event.progress,
      ...(event.total === undefined ? {} : { total: event.total }),
      ...(event.message === undefined ? {} : { message: event.message }),
    };
    this.#chain = this.#chain
      .then(() =>
        Promise.all([
          this.runManager.handleToolEvent(progress),
          this.runManager.handleCustomEvent(PROGRESS_EVENT, progress),
        ]),
      )
      // A failing handler is the handler's problem (LangChain logs it), never the call's.
      .then(
        () => undefined,
        () => undefined,
      );
  };

  settled(): Promise<void> {
    return this.#chain;
  }
}

/** The fields every tool of a set shares, from the set's options. */
export function sharedFields(
  options: Pick<ToolplaneToolFields, 'maxOutputChars' | 'media' | 'throwOnError' | 'meta'>,
): Pick<ToolplaneToolFields, 'maxOutputChars' | 'media' | 'throwOnError' | 'meta'> {
  return {
    ...(options.maxOutputChars === undefined ? {} : { maxOutputChars: options.maxOutputChars }),
    ...(options.media === undefined ? {} : { media: options.media }),
    ...(options.throwOnError === undefined ? {} : { throwOnError: options.throwOnError }),
    ...(options.meta === undefined ? {} : { meta: options.meta }),
  };
}
