import { describe, expect, it } from 'vitest';
import { catalogueIndex } from './testdata/catalogue.js';

/** Natural-language requests and the tool an agent should pick for each. */
const CASES: readonly (readonly [query: string, expected: string])[] = [
  ['open an issue about a bug in my repo', 'github:create_issue'],
  ['merge the pull request', 'github:merge_pull_request'],
  ['show the diff of the pull request', 'github:get_pull_request_diff'],
  ['post a message in the team channel', 'slack:post_message'],
  ['send a direct message to Alice', 'slack:send_direct_message'],
  ['read a text file from disk', 'filesystem:read_text_file'],
  ['list the files in a directory', 'filesystem:list_directory'],
  ['rename a file', 'filesystem:move_file'],
  ['create a folder in google drive', 'drive:create_folder'],
  ['make a new directory', 'filesystem:create_directory'],
  ['file size and permissions', 'filesystem:get_file_info'],
  ['find files matching a glob pattern', 'filesystem:search_files'],
  ['run a SQL select query', 'postgres:query'],
  ['which columns does the users table have', 'postgres:describe_table'],
  ['why is my query slow, show the execution plan', 'postgres:explain_query'],
  ['cancel a running query', 'postgres:cancel_query'],
  ['schedule a meeting with the team', 'calendar:create_event'],
  ['when is everyone free for a meeting', 'calendar:find_free_time'],
  ['decline the meeting invitation', 'calendar:respond_to_invitation'],
  ['what events are on my calendar next week', 'calendar:list_events'],
  ['email the invoice to the customer', 'stripe:send_invoice'],
  ['refund a payment', 'stripe:create_refund'],
  ['cancel a subscription', 'stripe:cancel_subscription'],
  ['send an email with an attachment', 'gmail:send_email'],
  ['find emails from my boss', 'gmail:search_emails'],
  ['move a jira ticket to done', 'jira:transition_ticket'],
  ['log time spent on a ticket', 'jira:add_worklog'],
  ['store new entities in the knowledge graph', 'memory:create_entities'],
  ['connect two entities with a relation', 'memory:create_relations'],
  ['add up two numbers', 'everything:get-sum'],
  ['echo back my input', 'everything:echo'],
  ['print the environment variables', 'everything:get-env'],
  ['compress a file with gzip', 'everything:gzip-file-as-resource'],
  ['weather forecast for Paris tomorrow', 'weather:get_forecast'],
  ['what time is it in Tokyo', 'time:get_current_time'],
  ['convert 3pm New York time to London time zone', 'time:convert_time'],
  ['fetch a web page as markdown', 'web:fetch_url'],
  ['search the web for news', 'web:web_search'],
  ['search source code for a function name', 'github:search_code'],
  ['re-run the failed CI workflow', 'github:rerun_workflow'],
  ['edit lines in a file and show the diff', 'filesystem:edit_file'],
  ['overwrite a file with new content', 'filesystem:write_file'],
  ['read several files at once', 'filesystem:read_multiple_files'],
  ['delete observations from an entity', 'memory:delete_observations'],
  ['react with an emoji to a message', 'slack:add_reaction'],
  ['share a spreadsheet with a colleague', 'drive:share_file'],
  ['export a doc as pdf', 'drive:export_pdf'],
  ['show the directory tree as json', 'filesystem:directory_tree'],
  ['which directories is the server allowed to access', 'filesystem:list_allowed_directories'],
  ['list the tables in the database', 'postgres:list_tables'],
];

// Measured with the default BM25 searcher on this catalogue; the test guards against regressions.
const TOP1_FLOOR = 0.8;
const TOP5_FLOOR = 0.95;

describe('search quality', () => {
  it(`finds the expected tool for ${CASES.length} natural-language requests`, async () => {
    const index = catalogueIndex();
    expect(index.size).toBeGreaterThan(140);
    let top1 = 0;
    let top5 = 0;
    const misses: string[] = [];
    for (const [query, expected] of CASES) {
      const { results } = await index.search(query, { limit: 5 });
      const rank = results.findIndex((result) => result.id === expected);
      if (rank === 0) top1++;
      if (rank >= 0) top5++;
      if (rank !== 0) {
        misses.push(
          `  ${JSON.stringify(query)} → ${results[0]?.id ?? '(none)'} (expected ${expected} at ${rank < 0 ? '>5' : rank + 1})`,
        );
      }
    }
    const rate1 = top1 / CASES.length;
    const rate5 = top5 / CASES.length;
    console.log(
      `search quality over ${index.size} tools, ${CASES.length} queries: top-1 ${rate1.toFixed(2)}, top-5 ${rate5.toFixed(2)}\n${misses.join('\n')}`,
    );
    expect(rate1).toBeGreaterThanOrEqual(TOP1_FLOOR);
    expect(rate5).toBeGreaterThanOrEqual(TOP5_FLOOR);
  });
});
