// How the builtins' tests call their tools through a toolkit: the structured answer, or the
// error a call fails with (the handler's own, also when it comes as the cause of `execution`).
import { ToolError, type Toolkit } from '@toolplane/toolkit';

type Args = Record<string, unknown>;

/** Calls of `toolkit`'s builtin tools by their bare names (`date_add`). */
export function builtinCalls(toolkit: Toolkit): {
  readonly call: (name: string, args: Args) => Promise<Record<string, unknown>>;
  readonly failure: (name: string, args: Args) => Promise<ToolError>;
  readonly codeOf: (name: string, args: Args) => Promise<string>;
} {
  const call = async (name: string, args: Args): Promise<Record<string, unknown>> =>
    (await toolkit.callTool(`builtin:${name}`, args)).structured as Record<string, unknown>;
  const settled = async (name: string, args: Args): Promise<unknown> => {
    try {
      await toolkit.callTool(`builtin:${name}`, args);
    } catch (error) {
      return ToolError.isInstance(error) && error.code === 'execution' ? error.cause : error;
    }
    return undefined;
  };
  return {
    call,
    failure: async (name, args) => {
      const error = await settled(name, args);
      if (ToolError.isInstance(error)) return error;
      throw new Error(
        `${name} ${error === undefined ? 'did not fail' : 'failed, not with a ToolError'}`,
        {
          cause: error,
        },
      );
    },
    codeOf: async (name, args) => {
      const error = await settled(name, args);
      if (error === undefined) return 'no error';
      return ToolError.isInstance(error) ? error.code : 'not a ToolError';
    },
  };
}
