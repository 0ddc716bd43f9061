import type { ToolkitItem } from '@toolplane/toolkit';

// The toolkit's items as the gateway serves them, named once here, below the server and the hub
// that both speak of them, so neither has to import the other for a type.

/** A tool of the toolkit's, as the gateway lists and calls it. */
export type ToolItem = Extract<ToolkitItem, { type: 'tool' }>;
/** A prompt of the toolkit's, as the gateway lists and renders it. */
export type PromptItem = Extract<ToolkitItem, { type: 'prompt' }>;
/** A resource of the toolkit's, as the gateway lists and reads it. */
export type ResourceItem = Extract<ToolkitItem, { type: 'resource' }>;
/** A list a client is told has changed. */
export type ListKind = 'tools' | 'prompts' | 'resources';
