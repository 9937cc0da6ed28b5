/**
 * A manual task as a standalone HTML page, for a browser that opens the task's URL (`Accept:
 * text/html`): the task's data, a form with one text box per field (the step's `fields`; for a
 * step that lists none, the data's variables), posted back to the same URL as form fields (the
 * public token stays in the URL). The page works without script; everything from the request is
 * escaped, and its Content-Security-Policy allows no script at all and only this origin's stylesheet.
 */
import type { Answer } from './http.js';
import type { TaskView } from './processes/host.js';

/** What the page allows: no script, the console's stylesheet, forms posted to this origin only. */
export const TASK_PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Most fields a page shows (a step may list up to 1000 variables; the form stays usable). */
const MAX_FIELDS = 200;
/** Most characters of one value shown in the page (a data document may hold 16 MiB). */
const MAX_VALUE_CHARS = 10_000;

/** Whether the client asked for HTML rather than JSON (a browser navigating to the URL). */
export function wantsHtml(headers: Record<string, string>): boolean {
  const accept = (headers.accept ?? '').toLowerCase();
  return accept.includes('text/html') && !accept.includes('application/json');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A value as one line of text (strings as they are, the rest as JSON), bounded. */
function shown(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? '';
    } catch {
      text = String(value);
    }
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

function page(status: number, title: string, body: string): Answer {
  const html =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)} · flowmark</title>` +
    '<link rel="stylesheet" href="/console/console.css"></head>' +
    `<body class="task-page"><main id="main">${body}</main></body></html>\n`;
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': TASK_PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'cache-control': 'no-store',
    },
    body: html,
  };
}

/** The names the form asks for: the step's fields, or (any field allowed) the data's variables. */
function formFields(task: TaskView): string[] {
  const names = task.fields ?? Object.keys(task.data).filter((n) => !n.startsWith('P_'));
  return names.slice(0, MAX_FIELDS);
}

/** The task's page: its data and, while it is open, its form; once submitted, what was sent. */
export function taskPage(task: TaskView, options: { submitted?: boolean } = {}): Answer {
  const title = task.name || `Task ${task.stepId}`;
  const parts = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="meta">Request ${escapeHtml(task.requestId)} · step ${task.stepId} · iteration ${task.iteration} · ${escapeHtml(task.status)}</p>`,
  ];
  const data = Object.entries(task.data).slice(0, MAX_FIELDS);
  if (data.length > 0)
    parts.push(
      '<section><h2>Data</h2><dl class="task-data">',
      ...data.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(shown(v))}</dd>`),
      '</dl></section>',
    );
  if (task.status === 'OPEN') {
    const inputs = formFields(task).map((name, i) => {
      const value = task.data[name];
      const attr = value === undefined || value === null ? '' : ` value="${escapeHtml(shown(value))}"`;
      return (
        `<div class="field"><label for="f${i}">${escapeHtml(name)}</label>` +
        `<input id="f${i}" name="${escapeHtml(name)}" type="text"${attr}></div>`
      );
    });
    parts.push(
      `<form method="post" class="task-form" aria-label="${escapeHtml(title)}">`,
      ...inputs,
      inputs.length === 0 ? '<p>This task has no field: submitting it lets the request go on.</p>' : '',
      '<button type="submit" class="primary">Submit</button></form>',
    );
  } else if (task.status === 'SUBMITTED') {
    parts.push(outcome(task, options.submitted === true));
    if (task.result)
      parts.push(
        '<section><h2>Submitted</h2><dl class="task-data">',
        ...Object.entries(task.result)
          .slice(0, MAX_FIELDS)
          .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(shown(v))}</dd>`),
        '</dl></section>',
      );
  } else
    parts.push(`<p class="message" role="status">This task is ${escapeHtml(task.status.toLowerCase())}.</p>`);
  return page(200, title, parts.join(''));
}

/**
 * What the submission led to, read from the request now: ended well, going on (running, or
 * waiting for another task, a sub-process or a resume), or ended otherwise, with its message.
 */
function outcome(task: TaskView, justSubmitted: boolean): string {
  const said = justSubmitted ? 'Thank you: the task was submitted' : 'This task has been submitted';
  const request = task.request;
  if (!request) return `<p class="message ok" role="status">${said}.</p>`;
  const ok = (text: string) => `<p class="message ok" role="status">${said}${text}</p>`;
  switch (request.status) {
    case 201:
      return ok(', and the request completed.');
    case 101:
      return ok(': the request goes on.');
    case 102:
      return ok(': the request now waits (for another task, a sub-process or a resume).');
    default: {
      const ended = ENDED[request.status] ?? `ended with status ${request.status}`;
      const why = request.message ? `: ${escapeHtml(request.message)}` : '.';
      return `<p class="message error" role="alert">${said}, but the request then ${ended}${why}</p>`;
    }
  }
}

const ENDED: Record<number, string> = {
  301: 'ended in error (301)',
  302: 'was stopped (302)',
  400: 'was cancelled (400)',
  401: 'timed out (401)',
};

/**
 * A visitor without a session or token: the 401 message, and a link to the console's login, which
 * comes back to `back` (the task's address) once logged in.
 */
export function taskLoginPage(message: string, accountId: string, back: string): Answer {
  const login = `/console/?${new URLSearchParams({ account: accountId, return: back }).toString()}`;
  return page(
    401,
    'Task',
    `<h1>Task</h1><p class="message error" role="alert">${escapeHtml(message)}</p>` +
      `<p><a class="button" href="${escapeHtml(login)}">Log in to open this task</a></p>`,
  );
}

/** An error as a page: the same status and message a JSON client gets. */
export function taskErrorPage(status: number, message: string): Answer {
  return page(
    status,
    'Task',
    `<h1>Task</h1><p class="message error" role="alert">${escapeHtml(message)}</p>`,
  );
}
