// The CLI masks with the toolkit's Secrets so that what it prints and what the toolkit hands out
// (connector status, errors, error results) hide the same values the same way.
export { MASK, Secrets } from '@toolplane/toolkit';
