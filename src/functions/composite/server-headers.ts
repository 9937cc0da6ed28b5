/**
 * Response headers the server frames itself and owns (the session cookie): a script may not set
 * them (set_header refuses them) and the server drops them from any host's answer.
 */
export const SERVER_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'set-cookie',
]);
