import type { LanguageModel, ProviderMetadata } from 'ai';

/** What a prompt's front matter asks for: `thinking` and `thinking_budget`. */
export interface ThinkingRequest {
  readonly thinking?: boolean | undefined;
  readonly thinkingBudget?: number | undefined;
}

// The AI SDK's provider options have the shape of its provider metadata: JSON per provider.
type ProviderOptions = ProviderMetadata;

// OpenAI's reasoning models take an effort, not a budget: the budget picks the effort.
function effort(budget: number | undefined): 'low' | 'medium' | 'high' {
  if (budget === undefined) return 'medium';
  return budget <= 2048 ? 'low' : budget <= 16_384 ? 'medium' : 'high';
}

/** The provider a model belongs to: the prompt's `provider`, else the model's own (`openai.chat` → `openai`). */
export function providerOf(model: LanguageModel, named: string | undefined): string | undefined {
  if (named !== undefined) return named.toLowerCase();
  const id = typeof model === 'string' ? model.split('/')[0] : model.provider.split('.')[0];
  return id?.toLowerCase();
}

/**
 * The AI SDK `providerOptions` that carry a prompt's thinking settings to its provider:
 * Anthropic's thinking budget, OpenAI's reasoning effort, Google's thinking config. `undefined`
 * when the prompt asks for nothing or the provider has no such setting.
 */
export function thinkingOptions(
  provider: string | undefined,
  request: ThinkingRequest,
): ProviderOptions | undefined {
  const { thinking, thinkingBudget } = request;
  if (thinking === undefined && thinkingBudget === undefined) return undefined;
  const on = thinking ?? true;
  switch (provider) {
    case 'anthropic':
      return {
        anthropic: {
          thinking: on
            ? { type: 'enabled', budgetTokens: thinkingBudget ?? 1024 }
            : { type: 'disabled' },
        },
      };
    case 'openai':
    case 'azure':
      return on ? { openai: { reasoningEffort: effort(thinkingBudget) } } : undefined;
    case 'google':
    case 'gemini':
    case 'vertex':
      return {
        google: {
          thinkingConfig: on
            ? {
                includeThoughts: false,
                ...(thinkingBudget === undefined ? {} : { thinkingBudget }),
              }
            : { thinkingBudget: 0 },
        },
      };
    default:
      return undefined;
  }
}
