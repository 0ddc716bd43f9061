import type { TwoToolCase } from './real-world-requests.js';

/**
 * A fresh evaluation set of two-tool requests over the real tools of public-catalogue.json and
 * catalogue.json, written for the two-tool round of issue 31 and committed before any change of
 * that round was tried. The older two-tool held-out halves had been run in several rounds; this
 * set has been run only with settings already fixed. Phrased as people ask: two clauses joined by
 * "and", "then" or a comma, both needs in one sentence, or a second need left implicit ("before
 * filing a new one", "if so, merge it"). Evaluation only: never split, never tuned on, only ever
 * reported as a rate (both tools among the first five).
 */
export const FRESH_TWO_TOOL_REQUESTS: readonly TwoToolCase[] = [
  // GitHub: issues, pull requests, branches and code.
  [
    'pull up the open bugs on the api repo and leave a comment on the oldest one',
    'github:list_issues',
    'github:add_issue_comment',
  ],
  [
    'grab the README from our docs repo then post a summary of it in #general',
    'github:get_file_contents',
    'slack:slack_post_message',
  ],
  [
    'branch off main for the hotfix and open a PR for it',
    'github:create_branch',
    'github:create_pull_request',
  ],
  [
    'fork the upstream repo to my account, then push my local changes to it',
    'github:fork_repository',
    'github:push_files',
  ],
  [
    'did the checks pass on PR 88? if so, merge it',
    'github:get_pull_request_status',
    'github:merge_pull_request',
  ],
  [
    'which files does PR 12 touch, and what inline comments did reviewers leave on it',
    'github:get_pull_request_files',
    'github:get_pull_request_comments',
  ],
  [
    'approve the pull request with a short review and bring its branch up to date with main',
    'github:create_pull_request_review',
    'github:update_pull_request_branch',
  ],
  [
    'look for an existing issue about the memory leak before filing a new one',
    'github:search_issues',
    'github:create_issue',
  ],
  ['close issue 57 and say why in a comment', 'github:update_issue', 'github:add_issue_comment'],
  [
    'search our code for calls to the deprecated parse helper and show the latest commits on main',
    'github:search_code',
    'github:list_commits',
  ],
  [
    'create a repo called tidy-scripts and put a README in it',
    'github:create_repository',
    'github:create_or_update_file',
  ],
  [
    'list the open PRs, then give me the details of the one about caching',
    'github:list_pull_requests',
    'github:get_pull_request',
  ],
  [
    'find github users named linus and repos about kernel schedulers',
    'github:search_users',
    'github:search_repositories',
  ],
  [
    'get the details of issue 204 and post them to the support channel',
    'github:get_issue',
    'slack:slack_post_message',
  ],
  // GitLab.
  [
    'spin up a new gitlab project and make a dev branch in it',
    'gitlab:create_repository',
    'gitlab:create_branch',
  ],
  [
    'open a merge request on gitlab and also file an issue there to track the follow-up',
    'gitlab:create_merge_request',
    'gitlab:create_issue',
  ],
  [
    'read package.json from the gitlab project and bump the version number in it',
    'gitlab:get_file_contents',
    'gitlab:create_or_update_file',
  ],
  [
    'fork the gitlab project into our group and push the patched files',
    'gitlab:fork_repository',
    'gitlab:push_files',
  ],
  // Slack.
  [
    'what did people say in #deploys today, and react with a thumbs up to the last message',
    'slack:slack_get_channel_history',
    'slack:slack_add_reaction',
  ],
  [
    'read all the replies under the outage thread, then answer in that thread',
    'slack:slack_get_thread_replies',
    'slack:slack_reply_to_thread',
  ],
  [
    'who is in the workspace, and pull up the profile of the new designer',
    'slack:slack_get_users',
    'slack:slack_get_user_profile',
  ],
  [
    'show every channel we have and the latest chatter in #random',
    'slack:slack_list_channels',
    'slack:slack_get_channel_history',
  ],
  // Maps.
  [
    'give me driving directions from Lyon to Geneva and tell me how high Geneva sits',
    'google-maps:maps_directions',
    'google-maps:maps_elevation',
  ],
  [
    'what are the coordinates of 10 Downing Street, then find cafes near there on google maps',
    'google-maps:maps_geocode',
    'google-maps:maps_search_places',
  ],
  [
    'on google maps find pizza places near Union Square, then get the opening hours of the top one',
    'google-maps:maps_search_places',
    'google-maps:maps_place_details',
  ],
  [
    'what address is at 48.8584, 2.2945 and how do I walk there from the Louvre',
    'google-maps:maps_reverse_geocode',
    'google-maps:maps_directions',
  ],
  // Browser.
  [
    'open the signup page in the browser and take a screenshot',
    'puppeteer:puppeteer_navigate',
    'puppeteer:puppeteer_screenshot',
  ],
  [
    'type my email into the login form, then click submit',
    'puppeteer:puppeteer_fill',
    'puppeteer:puppeteer_click',
  ],
  [
    'hover over the menu and choose Dark from the theme dropdown',
    'puppeteer:puppeteer_hover',
    'puppeteer:puppeteer_select',
  ],
  [
    'run some javascript on the page to count the links, then screenshot the header',
    'puppeteer:puppeteer_evaluate',
    'puppeteer:puppeteer_screenshot',
  ],
  // Redis and SQL.
  ['cache the session token in redis and read back the user:42 key', 'redis:set', 'redis:get'],
  [
    'clear the stale feature flags out of redis after listing which keys match flag:*',
    'redis:list',
    'redis:delete',
  ],
  [
    "count last week's orders with a SQL query and send the number to the sales channel",
    'postgres:query',
    'slack:slack_post_message',
  ],
  // Search, knowledge bases, drive, images.
  [
    'search the web for the latest node release notes and save a summary into notes.md',
    'brave-search:brave_web_search',
    'filesystem:write_file',
  ],
  [
    "check the knowledge base for our refund policy and search the web for competitors' refund terms",
    'aws-kb-retrieval:retrieve_from_aws_kb',
    'brave-search:brave_web_search',
  ],
  [
    'find the Q3 budget sheet in google drive and share the link in #finance',
    'gdrive:search',
    'slack:slack_post_message',
  ],
  [
    'draw me a fox in a spacesuit and write the link into links.txt',
    'everart:generate_image',
    'filesystem:write_file',
  ],
  // Filesystem.
  [
    'which folders can you access? then show the tree under src',
    'filesystem:list_allowed_directories',
    'filesystem:directory_tree',
  ],
  [
    'rename draft.md to final.md and tell me its size and when it was modified',
    'filesystem:move_file',
    'filesystem:get_file_info',
  ],
  [
    "make a folder called reports and write this month's summary into it",
    'filesystem:create_directory',
    'filesystem:write_file',
  ],
  [
    'find all the yaml files under config and read them all at once',
    'filesystem:search_files',
    'filesystem:read_multiple_files',
  ],
  [
    'show me logo.png as an image, plus the size of every file in the assets folder',
    'filesystem:read_media_file',
    'filesystem:list_directory_with_sizes',
  ],
  [
    'fix the typo on line 3 of config.txt, then read the whole text file back to check',
    'filesystem:edit_file',
    'filesystem:read_text_file',
  ],
  [
    'what is in the downloads folder? move the pdfs into archive',
    'filesystem:list_directory',
    'filesystem:move_file',
  ],
  // Knowledge graph.
  [
    'remember that Alice works at Acme, and link her to the Berlin office',
    'memory:create_entities',
    'memory:create_relations',
  ],
  [
    'note on Bob that he prefers email, then show me the whole graph',
    'memory:add_observations',
    'memory:read_graph',
  ],
  [
    'find what we know about project falcon and forget the outdated facts about it',
    'memory:search_nodes',
    'memory:delete_observations',
  ],
  [
    'drop the relation between Carol and Acme, and open the nodes for Carol and Dave',
    'memory:delete_relations',
    'memory:open_nodes',
  ],
  // The everything server.
  ['add 17 and 25, and echo the result back', 'everything:get-sum', 'everything:echo'],
  [
    'turn on the simulated logging, then kick off a long running job so I can watch its progress',
    'everything:toggle-simulated-logging',
    'everything:trigger-long-running-operation',
  ],
  [
    'gzip report.txt and show me the environment variables',
    'everything:gzip-file-as-resource',
    'everything:get-env',
  ],
];
