import type { QueryCase } from './queries.js';
import { splitCases, type SplitSet } from './split.js';

/**
 * Single-need requests over the quality catalogue of catalogue.ts that read like two clauses: a
 * question mark before a detail, a comma, "before" or "after" inside one need, a polite tail.
 * Written for the two-tool round of issue 31, so that splitting requests into clauses can be
 * checked for what it costs a request with one need. Split by split.ts: the tuning half may
 * guide changes, the held-out half is only ever a rate.
 */
const WRITTEN: readonly QueryCase[] = [
  ['what is the weather going to be in Lisbon? use celsius please', 'weather:get_forecast'],
  ['can you post in #general? say the build is fixed', 'slack:post_message'],
  ['how big is the orders table? include its indexes', 'postgres:get_table_size'],
  ['who is on the team workspace, with their titles', 'slack:list_users'],
  ['send Maria an email, subject: invoice, body: see attached', 'gmail:send_email'],
  ['snapshot the database before tonight’s migration', 'postgres:backup_database'],
  ['what time is it in Sydney right now?', 'time:get_current_time'],
  ['list my calendar events after 5pm on Friday', 'calendar:list_events'],
  ['is there a ticket PROJ-88? show me its status', 'jira:get_ticket'],
  ['open a PR from feature-x into main, titled Add caching', 'github:create_pull_request'],
  ['which branches does the api repo have?', 'github:list_branches'],
  ['refund order 1234, the customer was charged twice', 'stripe:create_refund'],
  ['find emails from Dana about the budget, last month only', 'gmail:search_emails'],
  ['create an issue: login page is blank after deploy', 'github:create_issue'],
  [
    'block my calendar as out of office from Monday, back on the 12th',
    'calendar:set_out_of_office',
  ],
  ['what changed in commit abc123? show the files', 'github:get_commit'],
  [
    'schedule a message to #team for 9am tomorrow, reminding about standup',
    'slack:schedule_message',
  ],
  ['how long is Pat’s working day, and in which time zone', 'calendar:get_working_hours'],
  ['explain why this query is slow: select * from orders where id = 4', 'postgres:explain_query'],
  ['download the PDF attached to the last invoice email', 'gmail:download_attachment'],
  ['read the doc called roadmap, the 2026 one', 'drive:read_document'],
  ['convert 14:00 in New York to London time, please', 'time:convert_time'],
  ['are there any weather alerts for Texas today?', 'weather:get_alerts'],
  ['fetch https://example.com/pricing and give me the text', 'web:fetch_url'],
  ['take a screenshot of our homepage, full page', 'web:screenshot_page'],
  ['what sprints are on the mobile board?', 'jira:list_sprints'],
  ['log two hours on PROJ-7, spent on code review', 'jira:add_worklog'],
  ['start a monthly plan for customer cus_42, the pro price', 'stripe:create_subscription'],
  ['how much is in our stripe balance? pending too', 'stripe:get_balance'],
  ['give the design folder to Omar as an editor', 'drive:share_file'],
  ['reply to the thread in #support, saying we are on it', 'slack:reply_to_thread'],
  ['what did the last workflow runs do? the nightly ones', 'github:list_workflow_runs'],
  ['merge PR 77 after squashing it', 'github:merge_pull_request'],
  ['mark all the newsletter emails as read, they are noise', 'gmail:mark_as_read'],
  ['accept the invite to the planning meeting, tentatively', 'calendar:respond_to_invitation'],
  [
    'which queries are running on postgres right now, with their durations?',
    'postgres:list_active_queries',
  ],
  ['add a label urgent to the email from the CEO', 'gmail:add_label'],
  ['search the web for rust async tutorials, the recent ones', 'web:web_search'],
  ['create a new google doc with these meeting notes, title standup', 'drive:create_document'],
  ['pin the welcome message in #newcomers, it should stay on top', 'slack:pin_message'],
];

/** {@link WRITTEN} split by split.ts: tune on `tuning`, report `heldOut` as a rate only. */
export const ONE_NEED_CLAUSE_REQUESTS: SplitSet<QueryCase> = splitCases(WRITTEN);
