import type { TwoToolCase } from './real-world-requests.js';
import { splitCases, type SplitSet } from './split.js';

/**
 * Two-tool requests over the quality catalogue of catalogue.ts (real servers' tools and the
 * hand-written ones), written for the two-tool round of issue 31 in the phrasings the older sets
 * lack: a second need after "before", "after", "once" or "if so", a question followed by an
 * order, two needs in one sentence without a joining word, and commas. Split by split.ts: the
 * tuning half guides the multi-intent ranking (its misses may be read), the held-out half is
 * only ever a rate.
 */
const WRITTEN: readonly TwoToolCase[] = [
  [
    'check whether a ticket for the login bug exists before creating one',
    'jira:search_tickets',
    'jira:create_ticket',
  ],
  [
    'look at the diff of PR 41 before approving it',
    'github:get_pull_request_diff',
    'github:create_pull_request_review',
  ],
  [
    'after the workflow run failed, rerun it and tell #ci about it',
    'github:rerun_workflow',
    'slack:post_message',
  ],
  [
    'is anyone free on Thursday afternoon? book the design review then',
    'calendar:find_free_time',
    'calendar:create_event',
  ],
  [
    'did the customer pay? if so, send them the invoice',
    'stripe:list_payments',
    'stripe:send_invoice',
  ],
  [
    'which tables are in the public schema, describe the orders one',
    'postgres:list_tables',
    'postgres:describe_table',
  ],
  [
    'once the migration is done vacuum the events table and check its size',
    'postgres:vacuum_table',
    'postgres:get_table_size',
  ],
  [
    'dump the database before I run the delete statement',
    'postgres:backup_database',
    'postgres:execute',
  ],
  [
    'what is running on the database right now? kill the longest query',
    'postgres:list_active_queries',
    'postgres:cancel_query',
  ],
  [
    'find the contract doc in drive, share it with legal as viewer',
    'drive:search_files',
    'drive:share_file',
  ],
  [
    'export the quarterly report as PDF and email it to the board',
    'drive:export_pdf',
    'gmail:send_email',
  ],
  [
    'download the attachment from the supplier email after reading it',
    'gmail:read_email',
    'gmail:download_attachment',
  ],
  [
    'draft a reply to the recruiter but label the thread as jobs first',
    'gmail:create_draft',
    'gmail:add_label',
  ],
  [
    'set my status to on holiday and block next week as out of office',
    'slack:set_status',
    'calendar:set_out_of_office',
  ],
  [
    'create a channel for the launch, invite the marketing folks to it',
    'slack:create_channel',
    'slack:invite_to_channel',
  ],
  [
    'pin the release announcement after posting it in #general',
    'slack:post_message',
    'slack:pin_message',
  ],
  [
    'DM Priya the meeting notes and upload the slides to the team channel',
    'slack:send_direct_message',
    'slack:upload_file',
  ],
  ['who reported the flaky test ticket? assign it to me', 'jira:get_ticket', 'jira:assign_ticket'],
  [
    'move PROJ-12 to done once you log three hours on it',
    'jira:transition_ticket',
    'jira:add_worklog',
  ],
  [
    'how did the last sprint go, list the sprints on the board first',
    'jira:list_sprints',
    'jira:get_sprint_report',
  ],
  [
    'sign up the new customer in stripe and start their monthly plan',
    'stripe:create_customer',
    'stripe:create_subscription',
  ],
  [
    'how much money is in the account? make a payment link for the workshop',
    'stripe:get_balance',
    'stripe:create_payment_link',
  ],
  ['grab the page at example.com, screenshot it too', 'web:fetch_url', 'web:screenshot_page'],
  [
    'search the web for the library changelog before upgrading and read the release page',
    'web:web_search',
    'web:fetch_url',
  ],
  [
    'are there storm warnings in Florida? what is the forecast for Miami',
    'weather:get_alerts',
    'weather:get_forecast',
  ],
  [
    'what time is it in Tokyo, convert 3pm Berlin time to Tokyo time',
    'time:get_current_time',
    'time:convert_time',
  ],
  [
    'list the branches, cut a release branch from main',
    'github:list_branches',
    'github:create_branch',
  ],
  [
    'show me the commits on main since Monday then open the latest one',
    'github:list_commits',
    'github:get_commit',
  ],
  [
    'ask Sam and Lee to review my PR after opening it',
    'github:create_pull_request',
    'github:request_reviewers',
  ],
  [
    'what are my unread github notifications, reply on the issue that mentions me',
    'github:list_notifications',
    'github:add_issue_comment',
  ],
  [
    'fix the title of issue 9 before you merge the linked PR',
    'github:update_issue',
    'github:merge_pull_request',
  ],
  [
    'check the indexes on the users table, add one on email if missing',
    'postgres:list_indexes',
    'postgres:create_index',
  ],
  [
    'move the standup to 10am and let the team know in slack',
    'calendar:update_event',
    'slack:post_message',
  ],
  [
    'decline the offsite invite, then cancel my dentist appointment',
    'calendar:respond_to_invitation',
    'calendar:delete_event',
  ],
  [
    'when does Ana start work in her time zone? set up a weekly 1:1 with her',
    'calendar:get_working_hours',
    'calendar:create_recurring_event',
  ],
  [
    'read the onboarding doc and write a shorter version as a new doc',
    'drive:read_document',
    'drive:create_document',
  ],
  [
    'put the new prices into the pricing sheet, make a folder for the archive',
    'drive:update_spreadsheet',
    'drive:create_folder',
  ],
  [
    'search slack for messages about the outage and read the thread replies on the first one',
    'slack:search_messages',
    'slack:get_thread_replies',
  ],
  [
    'edit my last message in #general and react to Tom with a thumbs up',
    'slack:update_message',
    'slack:add_reaction',
  ],
  [
    'archive the old launch channel after deleting my test message there',
    'slack:delete_message',
    'slack:archive_channel',
  ],
];

/** {@link WRITTEN} split by split.ts: tune on `tuning`, report `heldOut` as a rate only. */
export const IMPLICIT_TWO_TOOL_REQUESTS: SplitSet<TwoToolCase> = splitCases(WRITTEN);
