import type { ToolIndex } from '@toolplane/toolindex';
import { ToolError, toolId, type Tool } from '@toolplane/toolmodel';
import type { LocalRegistry } from '@toolplane/toolrun';
import type { DefinedTool } from '../define-tool.js';
import { validatePrompt, type Prompt } from '../prompts/prompts.js';
import { readTemplate, type ResourceTemplate } from '../resources/resource-templates.js';
import type { BuiltinKind } from './types.js';
import {
  isLiveResource,
  readLive,
  validateLiveResource,
  type LiveResource,
} from '../resources/live-resources.js';
import { validateResource, type Resource } from '../resources/resources.js';
import { localPromptItem, makeSource, resourceItem, toolItem, type Source } from './sources.js';
import {
  BUILTIN_NAMESPACE,
  type ToolItem,
  type ToolkitEvent,
  type ToolkitResourceTemplate,
} from './types.js';

/**
 * The `builtin` namespace of a toolkit: the tools, prompts, resources and resource templates
 * registered in code, each change announced through `emit`.
 */
export class Builtins {
  readonly #index: ToolIndex;
  readonly #local: LocalRegistry;
  readonly #emit: (event: ToolkitEvent) => void;
  readonly #tools = new Map<string, DefinedTool>();
  readonly #prompts = new Map<string, Prompt>();
  readonly #resources = new Map<string, Resource | LiveResource>();
  readonly #templates = new Map<string, ResourceTemplate>();

  constructor(parts: {
    index: ToolIndex;
    local: LocalRegistry;
    emit: (event: ToolkitEvent) => void;
  }) {
    this.#index = parts.index;
    this.#local = parts.local;
    this.#emit = parts.emit;
  }

  addTool(defined: DefinedTool): void {
    const tool: Tool = { ...defined.tool, namespace: BUILTIN_NAMESPACE };
    const handlerName = toolId(tool);
    this.#index.registerTool(
      tool,
      { kind: 'local', local: { name: handlerName } },
      { replace: true },
    );
    this.#local.register(handlerName, defined.handler);
    this.#tools.set(tool.name, defined);
    this.#emit({ type: 'tool_list_changed', namespace: BUILTIN_NAMESPACE });
  }

  addPrompt(prompt: Prompt): void {
    const valid = validatePrompt(prompt);
    this.#prompts.set(valid.name, valid);
    this.#emit({ type: 'prompt_list_changed', namespace: BUILTIN_NAMESPACE });
  }

  addResource(resource: Resource | LiveResource): void {
    const valid = isLiveResource(resource)
      ? validateLiveResource(resource)
      : validateResource(resource);
    const replaced = this.#resources.has(valid.uri);
    this.#resources.set(valid.uri, valid);
    this.#emit(
      replaced
        ? { type: 'resource_updated', namespace: BUILTIN_NAMESPACE, uri: valid.uri }
        : { type: 'resource_list_changed', namespace: BUILTIN_NAMESPACE },
    );
  }

  addResourceTemplate(template: ResourceTemplate): void {
    const given: unknown = template;
    if (
      typeof given !== 'object' ||
      given === null ||
      typeof template.match !== 'function' ||
      typeof template.mcp !== 'object'
    ) {
      throw new ToolError(
        'invalid_resource',
        'a resource template must be made by defineResourceTemplate',
      );
    }
    this.#templates.set(template.name, template);
    this.#emit({ type: 'resource_list_changed', namespace: BUILTIN_NAMESPACE });
  }

  /** The builtin resource templates, in registration order. */
  resourceTemplates(): ToolkitResourceTemplate[] {
    return [...this.#templates.values()].map((t) => ({
      namespace: BUILTIN_NAMESPACE,
      name: t.name,
      template: t.mcp,
    }));
  }

  /**
   * The tool item of this very definition.
   *
   * @throws {ToolError} `not_found` when another definition (or none) has its name here.
   */
  item(defined: DefinedTool): ToolItem {
    const name = defined.tool.name;
    const found =
      this.#tools.get(name) === defined
        ? toolItem(this.#index, BUILTIN_NAMESPACE, name)
        : undefined;
    if (found === undefined) {
      throw new ToolError(
        'not_found',
        `tool "${BUILTIN_NAMESPACE}:${name}" is not this definition in this toolkit; add it with createToolkit({ tools }) or addTool first`,
      );
    }
    return found;
  }

  /** The builtin template with this URI template, if any. */
  template(uriTemplate: string): ResourceTemplate | undefined {
    return [...this.#templates.values()].find((t) => t.uriTemplate === uriTemplate);
  }

  /**
   * Removes one builtin: the tool of that name, or else the prompt, or else the resource (by URI
   * or name), or else the resource template, and says which.
   *
   * @throws {ToolError} `not_found` when there is none.
   */
  remove(nameOrUri: string): BuiltinKind {
    if (this.#tools.delete(nameOrUri)) {
      const id = `${BUILTIN_NAMESPACE}:${nameOrUri}`;
      this.#index.unregisterTool(id);
      this.#local.unregister(id);
      this.#emit({ type: 'tool_list_changed', namespace: BUILTIN_NAMESPACE });
      return 'tool';
    }
    if (this.#prompts.delete(nameOrUri)) {
      this.#emit({ type: 'prompt_list_changed', namespace: BUILTIN_NAMESPACE });
      return 'prompt';
    }
    const uri = this.#resources.has(nameOrUri)
      ? nameOrUri
      : [...this.#resources.values()].find((r) => r.name === nameOrUri)?.uri;
    if (uri !== undefined && this.#resources.delete(uri)) {
      this.#emit({ type: 'resource_list_changed', namespace: BUILTIN_NAMESPACE });
      return 'resource';
    }
    if (this.#templates.delete(nameOrUri)) {
      this.#emit({ type: 'resource_list_changed', namespace: BUILTIN_NAMESPACE });
      return 'resource_template';
    }
    throw new ToolError(
      'not_found',
      `no builtin tool, prompt, resource or resource template "${nameOrUri}" to remove`,
    );
  }

  /** Reads a URI (or `uri#builtin`) through the first builtin template that matches it. */
  async readFromTemplate(key: string, signal?: AbortSignal): Promise<Resource | undefined> {
    const suffix = `#${BUILTIN_NAMESPACE}`;
    const uri = key.endsWith(suffix) ? key.slice(0, -suffix.length) : key;
    for (const template of this.#templates.values()) {
      const found = await readTemplate(template, uri, signal);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** The builtin namespace as lookup and list read it. */
  source(): Source {
    const namespace = BUILTIN_NAMESPACE;
    const index = this.#index;
    return makeSource({
      namespace,
      tools: () =>
        [...this.#tools.keys()].flatMap((name) => toolItem(index, namespace, name) ?? []),
      tool: (name) => (this.#tools.has(name) ? toolItem(index, namespace, name) : undefined),
      prompt: (name) => {
        const found = this.#prompts.get(name);
        return found === undefined ? undefined : localPromptItem(namespace, found);
      },
      prompts: () =>
        [...this.#prompts.values()].map((prompt) => localPromptItem(namespace, prompt)),
      resources: () => [...this.#resources.values()].map((r) => resourceItem(namespace, r)),
      read: (uri, signal) => {
        const found = this.#resources.get(uri);
        return found !== undefined && isLiveResource(found) ? readLive(found, signal) : found;
      },
    });
  }
}
