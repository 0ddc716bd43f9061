import type { TwoToolCase } from './real-world-requests.js';

/**
 * Requests naming two needs over the quality catalogue of catalogue.ts (real servers' tools and
 * the hand-written ones), written for multi-intent search. Split by split.ts like every set:
 * the tuning half may guide changes, the held-out half is only ever a rate.
 */
export const CATALOGUE_TWO_TOOL_REQUESTS: readonly TwoToolCase[] = [
  [
    'create a jira ticket for the outage and post it in the incidents channel',
    'jira:create_ticket',
    'slack:post_message',
  ],
  [
    'find a free slot next week and schedule the retro',
    'calendar:find_free_time',
    'calendar:create_event',
  ],
  [
    'refund the last payment and cancel their subscription',
    'stripe:create_refund',
    'stripe:cancel_subscription',
  ],
  [
    'read the spreadsheet of Q3 numbers, then email it to finance',
    'drive:read_spreadsheet',
    'gmail:send_email',
  ],
  [
    'list the slow queries and explain the worst one',
    'postgres:list_slow_queries',
    'postgres:explain_query',
  ],
  [
    'check the weather forecast for Berlin and what time it is there',
    'weather:get_forecast',
    'time:get_current_time',
  ],
  ['merge the PR and publish a release', 'github:merge_pull_request', 'github:create_release'],
  [
    'open a pull request and ask Sam to review it',
    'github:create_pull_request',
    'github:request_reviewers',
  ],
  [
    'search my inbox for the contract and download the attachment',
    'gmail:search_emails',
    'gmail:download_attachment',
  ],
  [
    'rerun the failed workflow, then post the result to slack',
    'github:rerun_workflow',
    'slack:post_message',
  ],
  [
    'move the ticket to in progress and log two hours on it',
    'jira:transition_ticket',
    'jira:add_worklog',
  ],
  [
    'create an invoice for the customer and send it',
    'stripe:create_invoice',
    'stripe:send_invoice',
  ],
  ['fetch the pricing page and take a screenshot of it', 'web:fetch_url', 'web:screenshot_page'],
  [
    'back up the database, then vacuum the orders table',
    'postgres:backup_database',
    'postgres:vacuum_table',
  ],
  [
    'create a channel for the launch and invite the designers',
    'slack:create_channel',
    'slack:invite_to_channel',
  ],
  [
    'set my status to on holiday and turn on out of office',
    'slack:set_status',
    'calendar:set_out_of_office',
  ],
  [
    'export the design doc as PDF and share it with the client',
    'drive:export_pdf',
    'drive:share_file',
  ],
  [
    'read the file from disk and write a copy with the fixes',
    'filesystem:read_text_file',
    'filesystem:write_file',
  ],
  [
    'store Alice as an entity and add the fact that she likes tea',
    'memory:create_entities',
    'memory:add_observations',
  ],
  [
    'list the tables in the database and describe the users table',
    'postgres:list_tables',
    'postgres:describe_table',
  ],
  ['reply to the email from Tom and archive it', 'gmail:reply_to_email', 'gmail:archive_email'],
  ['search the web for the library and fetch its docs page', 'web:web_search', 'web:fetch_url'],
  [
    'accept the meeting invite and add it to my list of events',
    'calendar:respond_to_invitation',
    'calendar:list_events',
  ],
  [
    'show the diff of the PR and leave a review',
    'github:get_pull_request_diff',
    'github:create_pull_request_review',
  ],
  [
    'create a new customer in stripe and give me a payment link for them',
    'stripe:create_customer',
    'stripe:create_payment_link',
  ],
  [
    'pin the announcement and add a party emoji reaction',
    'slack:pin_message',
    'slack:add_reaction',
  ],
  [
    'make a folder in drive and create a doc inside it',
    'drive:create_folder',
    'drive:create_document',
  ],
  [
    'list the branches and the latest commits on main',
    'github:list_branches',
    'github:list_commits',
  ],
  [
    'cancel the long running query and show what else is active',
    'postgres:cancel_query',
    'postgres:list_active_queries',
  ],
  [
    'delete the message I posted and send Bob a DM instead',
    'slack:delete_message',
    'slack:send_direct_message',
  ],
  ['draft an email to the team and label it urgent', 'gmail:create_draft', 'gmail:add_label'],
  [
    'any severe weather alerts, and convert 9am UTC to Tokyo time',
    'weather:get_alerts',
    'time:convert_time',
  ],
  [
    'search for tickets assigned to me and reassign the oldest one to Kim',
    'jira:search_tickets',
    'jira:assign_ticket',
  ],
  [
    'create an index on the email column and check the table size afterwards',
    'postgres:create_index',
    'postgres:get_table_size',
  ],
  [
    'look up the sprint report and list the sprints this quarter',
    'jira:get_sprint_report',
    'jira:list_sprints',
  ],
  [
    'upload the report to slack, then schedule a reminder message for Monday',
    'slack:upload_file',
    'slack:schedule_message',
  ],
  [
    'list my calendars and my working hours',
    'calendar:list_calendars',
    'calendar:get_working_hours',
  ],
  ['comment on the issue and close it as fixed', 'github:add_issue_comment', 'github:update_issue'],
  [
    'get the balance of the stripe account and list recent payments',
    'stripe:get_balance',
    'stripe:list_payments',
  ],
  [
    'show the folder tree and move the old drafts into archive',
    'filesystem:directory_tree',
    'filesystem:move_file',
  ],
];
