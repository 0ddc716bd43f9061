// npx installs a package into `<npm cache>/_npx/<hash>` and runs it from there ever after; an
// install ended midway leaves a folder npx takes for complete, and every later run fails to
// import what is missing. Its error says nothing of the cache, so the fix is named here.

/** Where a missing module was looked for under npx's cache, as Node's error names the path. */
const NPX_FOLDER = /((?:[A-Za-z]:)?[^\s'"()]*[\\/]_npx[\\/][0-9a-f]{6,})/;
const MISSING = /ERR_MODULE_NOT_FOUND|Cannot find (?:module|package)/;

/**
 * What to do about a stdio server that failed because npx's cache holds a half-installed
 * package, read off the server's stderr; `undefined` when the failure is something else.
 */
export function brokenNpxCacheHint(stderr: string): string | undefined {
  if (!MISSING.test(stderr)) return undefined;
  const folder = NPX_FOLDER.exec(stderr)?.[1];
  if (folder === undefined) return undefined;
  return `npx's cache folder ${folder} is incomplete (an earlier npx install was ended midway); remove it (rm -rf "${folder}") or run "npm cache clean --force", then start again`;
}
