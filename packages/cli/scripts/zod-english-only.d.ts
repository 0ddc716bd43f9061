import type { Plugin } from 'esbuild';

/** Keeps zod's `locales` namespace English only in a bundle (see zod-english-only.js). */
export declare const englishOnly: Plugin;
