import type { QueryCase } from './queries.js';

/** A request that needs two tools, both of which should be among the first five results. */
export type TwoToolCase = readonly [query: string, first: string, second: string];

/**
 * Single-tool requests over the real tool lists of public-catalogue.json and the three captured
 * servers of catalogue.json, written for this set the way people ask an assistant (their own
 * words, not the tools'). Evaluation only: never tune ranking, synonyms or aliases against them;
 * they are reported as rates, never per request (see split.ts).
 */
export const REAL_WORLD_QUERIES: readonly QueryCase[] = [
  ['open a bug ticket on our github project', 'github:create_issue'],
  ['what bugs are still open on the repo', 'github:list_issues'],
  ['close issue 118, it is fixed', 'github:update_issue'],
  ['leave a note on the issue saying I am on it', 'github:add_issue_comment'],
  ['show me everything about issue 7', 'github:get_issue'],
  ['any open tickets mentioning the login crash across all repos', 'github:search_issues'],
  ['find repositories about rust web frameworks', 'github:search_repositories'],
  ['start a brand new github repo called notes', 'github:create_repository'],
  ['make my own copy of that repo under my account', 'github:fork_repository'],
  ['new branch for the feature off main', 'github:create_branch'],
  ['who committed what on the release branch recently', 'github:list_commits'],
  ['show me the README from the repo', 'github:get_file_contents'],
  ['commit these three changed files in one go', 'github:push_files'],
  ['change one file in the repo and commit it', 'github:create_or_update_file'],
  ['where is parseConfig defined across github', 'github:search_code'],
  ['look up github users named octo', 'github:search_users'],
  ['propose my branch for merging into main', 'github:create_pull_request'],
  ['ship it: merge PR 42', 'github:merge_pull_request'],
  ['approve that PR with a short review', 'github:create_pull_request_review'],
  ['which files did the PR touch', 'github:get_pull_request_files'],
  ['are the CI checks green on the PR', 'github:get_pull_request_status'],
  ['bring the PR branch up to date with main', 'github:update_pull_request_branch'],
  ['what did reviewers say inline on the PR', 'github:get_pull_request_comments'],
  ['open pull requests on the repo', 'github:list_pull_requests'],
  ['has anyone approved or requested changes on the PR', 'github:get_pull_request_reviews'],
  ['open a merge request on gitlab', 'gitlab:create_merge_request'],
  ['raise an issue in the gitlab project', 'gitlab:create_issue'],
  ['fork the gitlab project into my namespace', 'gitlab:fork_repository'],
  ['find gitlab projects about terraform', 'gitlab:search_repositories'],
  ['set up a new gitlab project', 'gitlab:create_repository'],
  ['read the config file from the gitlab project', 'gitlab:get_file_contents'],
  ['post an update to #general', 'slack:slack_post_message'],
  ['answer in that slack thread', 'slack:slack_reply_to_thread'],
  ['thumbs up the message', 'slack:slack_add_reaction'],
  ['what channels does our slack have', 'slack:slack_list_channels'],
  ['catch me up on the latest messages in #ops', 'slack:slack_get_channel_history'],
  ['show every reply under that thread', 'slack:slack_get_thread_replies'],
  ['who is in our slack workspace', 'slack:slack_get_users'],
  ["what is Dana's title and timezone in slack", 'slack:slack_get_user_profile'],
  ['latitude and longitude of 10 Downing Street', 'google-maps:maps_geocode'],
  ['what address is at these coordinates', 'google-maps:maps_reverse_geocode'],
  ['coffee shops near the station', 'google-maps:maps_search_places'],
  ['opening hours and rating of this restaurant', 'google-maps:maps_place_details'],
  [
    'how long does it take to drive from each warehouse to each store',
    'google-maps:maps_distance_matrix',
  ],
  ['how high above sea level is Denver', 'google-maps:maps_elevation'],
  ['route from the airport to the hotel', 'google-maps:maps_directions'],
  ['go to example.com in the browser', 'puppeteer:puppeteer_navigate'],
  ['capture what the page looks like', 'puppeteer:puppeteer_screenshot'],
  ['press the submit button', 'puppeteer:puppeteer_click'],
  ['type my email into the login form', 'puppeteer:puppeteer_fill'],
  ['pick Germany in the country dropdown', 'puppeteer:puppeteer_select'],
  ['move the mouse over the menu', 'puppeteer:puppeteer_hover'],
  ['run some javascript on the page', 'puppeteer:puppeteer_evaluate'],
  ['cache this value under a key for an hour', 'redis:set'],
  ['read the cached value of session:42', 'redis:get'],
  ['evict those keys from the cache', 'redis:delete'],
  ['which cache keys start with user:', 'redis:list'],
  ['how many orders came in yesterday, ask the database', 'postgres:query'],
  ['look it up on the internet', 'brave-search:brave_web_search'],
  ['pizza places open now near me', 'brave-search:brave_local_search'],
  ['find the budget spreadsheet in my google drive', 'gdrive:search'],
  ['draw a picture of a cat in a spacesuit', 'everart:generate_image'],
  ['pull relevant passages from our AWS knowledge base', 'aws-kb-retrieval:retrieve_from_aws_kb'],
  ['say it back to me', 'everything:echo'],
  ['what is 17 plus 25', 'everything:get-sum'],
  ['print the contents of notes.txt', 'filesystem:read_text_file'],
  ['save this text as todo.md', 'filesystem:write_file'],
  ['what is in the downloads folder', 'filesystem:list_directory'],
  ['move report.pdf into the archive folder', 'filesystem:move_file'],
  ['make a folder for the screenshots', 'filesystem:create_directory'],
  ['show the whole folder hierarchy', 'filesystem:directory_tree'],
  ['find every .log file under this folder', 'filesystem:search_files'],
  ['when was this file last modified', 'filesystem:get_file_info'],
  ['fix the typo on line 3 of the file', 'filesystem:edit_file'],
  ['remember that Alice works at Acme', 'memory:create_entities'],
  ['note that Bob manages Alice', 'memory:create_relations'],
  ['add a fact to what you know about Alice', 'memory:add_observations'],
  ['what do you remember about Acme', 'memory:search_nodes'],
  ['dump everything in your memory', 'memory:read_graph'],
  ['forget Bob entirely', 'memory:delete_entities'],
];

/**
 * Requests naming two needs over the same real tools, written for multi-intent search: both tools
 * should be among the first five. Split by {@link splitCases} into a tuning half (its misses may
 * guide changes) and a held-out half (rates only).
 */
export const TWO_TOOL_REQUESTS: readonly TwoToolCase[] = [
  [
    'create an issue for the crash and post a note about it in slack',
    'github:create_issue',
    'slack:slack_post_message',
  ],
  [
    'take a screenshot of the page and save it to a file',
    'puppeteer:puppeteer_screenshot',
    'filesystem:write_file',
  ],
  [
    'look up the address of the office, then get directions there from the airport',
    'google-maps:maps_geocode',
    'google-maps:maps_directions',
  ],
  [
    'fork the repo and create a branch for my fix',
    'github:fork_repository',
    'github:create_branch',
  ],
  [
    'read config.yaml from disk and push it to the repo',
    'filesystem:read_text_file',
    'github:push_files',
  ],
  [
    'search the web for the error message and open an issue with what you find',
    'brave-search:brave_web_search',
    'github:create_issue',
  ],
  [
    'merge the pull request, then tell the team in slack',
    'github:merge_pull_request',
    'slack:slack_post_message',
  ],
  [
    'list the files in the project folder and show me the README',
    'filesystem:list_directory',
    'github:get_file_contents',
  ],
  [
    'go to the login page and type in my username',
    'puppeteer:puppeteer_navigate',
    'puppeteer:puppeteer_fill',
  ],
  [
    'find restaurants nearby and how far each is by car',
    'google-maps:maps_search_places',
    'google-maps:maps_distance_matrix',
  ],
  [
    'check the CI status of the PR and merge it if it passes',
    'github:get_pull_request_status',
    'github:merge_pull_request',
  ],
  [
    'read the latest messages in #support and file a github issue for each bug',
    'slack:slack_get_channel_history',
    'github:create_issue',
  ],
  [
    'cache the user count in redis and write it to a report file',
    'redis:set',
    'filesystem:write_file',
  ],
  [
    'query the database for failed payments, then post the numbers to slack',
    'postgres:query',
    'slack:slack_post_message',
  ],
  [
    'remember that Carol owns the billing service and link her to the payments team',
    'memory:create_entities',
    'memory:create_relations',
  ],
  [
    'search my drive for the roadmap and summarise recent commits',
    'gdrive:search',
    'github:list_commits',
  ],
  [
    'generate an image of a logo and save it in the assets folder',
    'everart:generate_image',
    'filesystem:write_file',
  ],
  [
    'click the accept cookies button, then take a screenshot',
    'puppeteer:puppeteer_click',
    'puppeteer:puppeteer_screenshot',
  ],
  [
    'review the PR changes and leave an approving review',
    'github:get_pull_request_files',
    'github:create_pull_request_review',
  ],
  [
    'open a merge request on gitlab and a pull request on github for the same fix',
    'gitlab:create_merge_request',
    'github:create_pull_request',
  ],
  ['delete the stale cache keys and list what is left', 'redis:delete', 'redis:list'],
  [
    'find the coordinates of the stadium and its elevation',
    'google-maps:maps_geocode',
    'google-maps:maps_elevation',
  ],
  [
    'reply in the thread and add a checkmark reaction to the question',
    'slack:slack_reply_to_thread',
    'slack:slack_add_reaction',
  ],
  [
    'make a new repository and upload my local files to it',
    'github:create_repository',
    'github:push_files',
  ],
  [
    'find every TODO in the code on github and open issues for them',
    'github:search_code',
    'github:create_issue',
  ],
  [
    'get the profile of the new hire in slack and remember them',
    'slack:slack_get_user_profile',
    'memory:create_entities',
  ],
  [
    'move the old logs into an archive folder and create a fresh log directory',
    'filesystem:move_file',
    'filesystem:create_directory',
  ],
  [
    'look up local bike shops and give me driving directions to the closest one',
    'brave-search:brave_local_search',
    'google-maps:maps_directions',
  ],
  ['comment on issue 12 and close it', 'github:add_issue_comment', 'github:update_issue'],
  [
    'run a script in the browser to read the page title, then hover over the menu',
    'puppeteer:puppeteer_evaluate',
    'puppeteer:puppeteer_hover',
  ],
  [
    'get the value of the feature flag from redis and query the users table',
    'redis:get',
    'postgres:query',
  ],
  [
    'edit the changelog file and commit it to the repo',
    'filesystem:edit_file',
    'github:create_or_update_file',
  ],
  [
    'what do you know about Acme, and search the knowledge base for its contract',
    'memory:search_nodes',
    'aws-kb-retrieval:retrieve_from_aws_kb',
  ],
  [
    'list the open pull requests and the open issues',
    'github:list_pull_requests',
    'github:list_issues',
  ],
  [
    'find the address for these coordinates and the place details there',
    'google-maps:maps_reverse_geocode',
    'google-maps:maps_place_details',
  ],
  [
    'list the slack channels and everyone in the workspace',
    'slack:slack_list_channels',
    'slack:slack_get_users',
  ],
  [
    'fill in the search box and pick a category from the dropdown',
    'puppeteer:puppeteer_fill',
    'puppeteer:puppeteer_select',
  ],
  [
    'show the folder tree and the size of the biggest file',
    'filesystem:directory_tree',
    'filesystem:get_file_info',
  ],
  [
    'search github issues about timeouts and read the review comments on the fix PR',
    'github:search_issues',
    'github:get_pull_request_comments',
  ],
  ['create a gitlab issue and a branch to fix it', 'gitlab:create_issue', 'gitlab:create_branch'],
];
