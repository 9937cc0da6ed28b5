/** The console's calls to the JSON API (/api/v1), through the client library's HTTP layer. */
import { ClientError } from '../client/errors.js';
import { requestJson, send } from '../client/http.js';

export { ClientError };

export function api<T = unknown>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  return requestJson<T>(method, `/api/v1${path}`, body);
}

/** A query string from the defined values. */
export function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Uploads a file (multipart/form-data) and returns the stored file's descriptor. */
export async function upload<T>(path: string, form: FormData): Promise<T> {
  const response = await send('POST', `/api/v1${path}`, { accept: 'application/json' }, form);
  return (await response.json()) as T;
}

/** The message to show for any failure. */
export function errorText(error: unknown): string {
  if (error instanceof ClientError)
    return error.status ? `${error.message} (${error.status} ${error.code})` : error.message;
  return error instanceof Error ? error.message : String(error);
}
