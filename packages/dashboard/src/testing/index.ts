// What other packages' browser tests share with the dashboard's own. Source only: never published.
export { buildApp } from '../../scripts/build-app.mjs';
export { launchChromium } from './chromium.js';
export { loginCookie } from './login.js';
export { postFrom } from './post-from.js';
export type { PostedFrom } from './post-from.js';
