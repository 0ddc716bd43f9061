import type { Tool } from '@toolplane/toolmodel';

/**
 * Hand-written tools in the style of popular MCP servers, so ranking is tested among close
 * neighbours (many tools "create", "list" or "search" something). Test data only.
 */
const SPECS: readonly (readonly [
  namespace: string,
  name: string,
  description: string,
  tags?: string,
])[] = [
  // github
  [
    'github',
    'create_issue',
    'Create a new issue in a GitHub repository with a title, body, labels and assignees.',
  ],
  ['github', 'get_issue', 'Get the details of a single issue in a repository by its number.'],
  [
    'github',
    'list_issues',
    'List issues in a repository, filtered by state, labels, assignee or milestone.',
  ],
  [
    'github',
    'update_issue',
    'Update an existing issue: change its title, body, state, labels or assignees.',
  ],
  ['github', 'add_issue_comment', 'Add a comment to an existing issue or pull request.'],
  [
    'github',
    'search_issues',
    'Search issues and pull requests across GitHub repositories with the issue search syntax.',
  ],
  [
    'github',
    'create_pull_request',
    'Open a new pull request to merge a head branch into a base branch.',
  ],
  [
    'github',
    'get_pull_request',
    'Get the details of a pull request, including its state, reviewers and mergeability.',
  ],
  [
    'github',
    'list_pull_requests',
    'List pull requests in a repository, filtered by state, head or base branch.',
  ],
  ['github', 'merge_pull_request', 'Merge a pull request using a merge commit, squash or rebase.'],
  ['github', 'get_pull_request_diff', 'Get the unified diff of the changes in a pull request.'],
  [
    'github',
    'create_pull_request_review',
    'Submit a review on a pull request: approve, request changes or comment.',
  ],
  ['github', 'request_reviewers', 'Request reviews on a pull request from users or teams.'],
  [
    'github',
    'create_repository',
    'Create a new GitHub repository for the authenticated user or an organisation.',
  ],
  ['github', 'fork_repository', 'Fork a repository to your account or an organisation.'],
  [
    'github',
    'search_repositories',
    'Search GitHub repositories by name, topic, language or stars.',
  ],
  [
    'github',
    'create_branch',
    'Create a new branch in a repository from an existing branch or commit.',
  ],
  ['github', 'list_branches', 'List the branches of a repository.'],
  ['github', 'list_commits', 'List the commits on a branch of a repository, newest first.'],
  ['github', 'get_commit', 'Get a single commit with its message, author, and changed files.'],
  [
    'github',
    'get_file_contents',
    'Get the contents of a file or directory from a repository at a given ref.',
  ],
  [
    'github',
    'create_or_update_file',
    'Create or update a single file in a repository with a commit.',
  ],
  ['github', 'push_files', 'Push several files to a branch in a single commit.'],
  ['github', 'search_code', 'Search source code across GitHub repositories.'],
  [
    'github',
    'list_workflow_runs',
    'List GitHub Actions workflow runs for a repository, with their status and conclusion.',
  ],
  ['github', 'rerun_workflow', 'Re-run a failed GitHub Actions workflow run.'],
  ['github', 'create_release', 'Create a release for a tag with release notes.'],
  ['github', 'list_notifications', 'List unread GitHub notifications for the authenticated user.'],
  // slack
  ['slack', 'post_message', 'Post a message to a Slack channel.'],
  ['slack', 'reply_to_thread', 'Reply to a message thread in a Slack channel.'],
  ['slack', 'update_message', 'Edit the text of a message you posted earlier.'],
  ['slack', 'delete_message', 'Delete a message from a Slack channel.'],
  ['slack', 'add_reaction', 'Add an emoji reaction to a message.'],
  ['slack', 'list_channels', 'List the public and private channels in the Slack workspace.'],
  ['slack', 'create_channel', 'Create a new Slack channel.'],
  ['slack', 'archive_channel', 'Archive a Slack channel so nobody can post in it any more.'],
  ['slack', 'invite_to_channel', 'Invite one or more users to a Slack channel.'],
  ['slack', 'get_channel_history', 'Get the recent messages posted in a Slack channel.'],
  ['slack', 'get_thread_replies', 'Get all replies in a message thread.'],
  ['slack', 'search_messages', 'Search Slack messages across channels by keyword, author or date.'],
  ['slack', 'list_users', 'List the members of the Slack workspace with their profiles.'],
  [
    'slack',
    'get_user_profile',
    'Get the profile of a Slack user: name, title, time zone and status.',
  ],
  ['slack', 'set_status', 'Set your Slack status text, emoji and expiry.'],
  ['slack', 'send_direct_message', 'Send a direct message to a user in Slack.'],
  ['slack', 'schedule_message', 'Schedule a message to be posted to a channel at a later time.'],
  ['slack', 'upload_file', 'Upload a file to a Slack channel or conversation.'],
  ['slack', 'pin_message', 'Pin a message to the top of a channel.'],
  // postgres
  [
    'postgres',
    'query',
    'Run a read-only SQL query against the PostgreSQL database and return the rows.',
    'sql, database',
  ],
  [
    'postgres',
    'execute',
    'Execute a SQL statement that changes data (INSERT, UPDATE, DELETE) in a transaction.',
    'sql, database',
  ],
  ['postgres', 'list_schemas', 'List the schemas in the PostgreSQL database.', 'database'],
  ['postgres', 'list_tables', 'List the tables of a schema with their row estimates.', 'database'],
  [
    'postgres',
    'describe_table',
    'Describe a table: its columns, types, defaults, constraints and indexes.',
    'database',
  ],
  [
    'postgres',
    'explain_query',
    'Show the execution plan of a SQL query (EXPLAIN ANALYZE) to find slow steps.',
    'sql, performance',
  ],
  [
    'postgres',
    'list_indexes',
    'List the indexes of a table with their definitions and sizes.',
    'database',
  ],
  ['postgres', 'create_index', 'Create an index on one or more columns of a table.', 'database'],
  [
    'postgres',
    'get_table_size',
    'Get the disk size of a table including its indexes and TOAST data.',
    'database',
  ],
  [
    'postgres',
    'list_active_queries',
    'List the queries running right now (pg_stat_activity), with their duration.',
    'performance',
  ],
  ['postgres', 'cancel_query', 'Cancel a running query by its backend process ID.', 'performance'],
  [
    'postgres',
    'vacuum_table',
    'Vacuum and analyse a table to reclaim space and refresh planner statistics.',
    'maintenance',
  ],
  ['postgres', 'backup_database', 'Dump the database to a file with pg_dump.', 'maintenance'],
  [
    'postgres',
    'list_slow_queries',
    'List the slowest statements recorded by pg_stat_statements.',
    'performance',
  ],
  // calendar
  ['calendar', 'list_events', 'List the events on a calendar between two dates.'],
  [
    'calendar',
    'get_event',
    'Get the details of a calendar event: time, location, attendees and description.',
  ],
  ['calendar', 'create_event', 'Create a calendar event or meeting and invite attendees.'],
  [
    'calendar',
    'update_event',
    'Change the time, title, location or attendees of an existing event.',
  ],
  ['calendar', 'delete_event', 'Delete an event from a calendar and notify the attendees.'],
  [
    'calendar',
    'find_free_time',
    'Find free time slots when all the given people are available for a meeting.',
  ],
  [
    'calendar',
    'respond_to_invitation',
    'Accept, decline or tentatively accept a meeting invitation.',
  ],
  ['calendar', 'list_calendars', 'List the calendars the user can see or edit.'],
  ['calendar', 'create_recurring_event', 'Create an event that repeats daily, weekly or monthly.'],
  [
    'calendar',
    'set_out_of_office',
    'Block time as out of office and automatically decline meetings.',
  ],
  ['calendar', 'get_working_hours', 'Get the working hours and time zone of a person.'],
  // gmail
  [
    'gmail',
    'send_email',
    'Send an email to one or more recipients, with optional CC, BCC and attachments.',
  ],
  [
    'gmail',
    'search_emails',
    'Search the mailbox with Gmail search operators (from:, subject:, has:attachment).',
  ],
  [
    'gmail',
    'read_email',
    'Read the full content of an email message, including headers and attachments.',
  ],
  ['gmail', 'create_draft', 'Create a draft email without sending it.'],
  ['gmail', 'reply_to_email', 'Reply to an email, keeping it in the same conversation thread.'],
  ['gmail', 'archive_email', 'Archive an email so it leaves the inbox.'],
  ['gmail', 'add_label', 'Add a label to one or more email messages.'],
  ['gmail', 'list_labels', 'List the labels in the mailbox.'],
  ['gmail', 'mark_as_read', 'Mark email messages as read.'],
  ['gmail', 'download_attachment', 'Download an attachment from an email message.'],
  // jira
  ['jira', 'create_ticket', 'Create a Jira ticket (story, bug or task) in a project.'],
  ['jira', 'get_ticket', 'Get a Jira ticket by its key, with status, assignee and comments.'],
  [
    'jira',
    'transition_ticket',
    'Move a Jira ticket to another status in its workflow (e.g. In Progress, Done).',
  ],
  ['jira', 'assign_ticket', 'Assign a Jira ticket to a user.'],
  ['jira', 'search_tickets', 'Search Jira tickets with a JQL query.'],
  ['jira', 'add_worklog', 'Log time spent working on a Jira ticket.'],
  ['jira', 'list_sprints', 'List the sprints of a Jira board.'],
  [
    'jira',
    'get_sprint_report',
    'Get the report of a sprint: completed and unfinished tickets and velocity.',
  ],
  // stripe
  ['stripe', 'create_customer', 'Create a customer in Stripe with an email and name.'],
  ['stripe', 'list_customers', 'List Stripe customers, optionally filtered by email.'],
  ['stripe', 'create_invoice', 'Create an invoice for a customer.'],
  ['stripe', 'send_invoice', 'Finalize an invoice and email it to the customer.'],
  ['stripe', 'create_refund', 'Refund a charge or payment intent, fully or partially.'],
  ['stripe', 'list_payments', 'List payment intents with their amount and status.'],
  ['stripe', 'create_subscription', 'Subscribe a customer to a recurring price.'],
  [
    'stripe',
    'cancel_subscription',
    'Cancel a customer subscription now or at the end of the period.',
  ],
  ['stripe', 'get_balance', 'Get the available and pending balance of the Stripe account.'],
  ['stripe', 'create_payment_link', 'Create a shareable payment link for a product price.'],
  // drive
  [
    'drive',
    'search_files',
    'Search Google Drive for documents, spreadsheets and folders by name or content.',
  ],
  ['drive', 'read_document', 'Read the text of a Google Docs document.'],
  ['drive', 'create_document', 'Create a new Google Docs document with the given content.'],
  ['drive', 'read_spreadsheet', 'Read cell values from a range of a Google Sheets spreadsheet.'],
  ['drive', 'update_spreadsheet', 'Write values to a range of cells in a spreadsheet.'],
  [
    'drive',
    'share_file',
    'Share a Drive file or folder with people, as viewer, commenter or editor.',
  ],
  ['drive', 'create_folder', 'Create a folder in Google Drive.'],
  ['drive', 'export_pdf', 'Export a Google Docs document or Sheet as a PDF file.'],
  // web, weather, time
  ['web', 'fetch_url', 'Fetch a web page by URL and return its content as markdown.'],
  [
    'web',
    'web_search',
    'Search the web and return the top results with titles, links and snippets.',
  ],
  ['web', 'screenshot_page', 'Take a screenshot of a web page in a headless browser.'],
  [
    'weather',
    'get_forecast',
    'Get the weather forecast for a city or coordinates for the next days.',
  ],
  ['weather', 'get_alerts', 'Get active severe weather alerts for a US state.'],
  ['time', 'get_current_time', 'Get the current date and time in a time zone.'],
  ['time', 'convert_time', 'Convert a time from one time zone to another.'],
];

function titleOf(name: string): string {
  return name
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** The synthetic tools, as registrable {@link Tool}s. */
export function syntheticTools(): Tool[] {
  return SPECS.map(([namespace, name, description, tags]) => ({
    name,
    namespace,
    title: titleOf(name),
    description,
    inputSchema: { type: 'object', properties: {} },
    ...(tags === undefined ? {} : { tags: tags.split(', ') }),
  }));
}
