/** Builds the web app into `outdir` (default the package's `static/`); resolves to that folder. */
export function buildApp(options?: { outdir?: string }): Promise<string>;
