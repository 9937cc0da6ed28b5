/** The console's calls to the JSON API (/api/v1), through the client library's HTTP layer. */
import { isRecord, propertyOf } from '../safety/narrow.js';
import { ClientError } from '../client/errors.js';
import { requestJson } from '../client/http.js';

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

/**
 * Uploads a form (multipart/form-data) with XMLHttpRequest, which reports the upload's progress
 * (fetch does not): `onProgress(sent, total)` as the bytes go; the answer as JSON, or its error as
 * a ClientError like every other call.
 */
export function uploadWithProgress<T>(
  path: string,
  form: FormData,
  onProgress: (sent: number, total: number) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = post(path, form, 'application/json', onProgress, reject);
    xhr.addEventListener('load', () => {
      const body = parsed(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300 && body !== undefined) resolve(body as T);
      else reject(failure(xhr.status, xhr.statusText, body));
    });
  });
}

/**
 * Uploads a form to a route that streams its progress as JSON lines (`Accept:
 * application/x-ndjson`, e.g. a collection import): `onLine` gets each line as it arrives; the
 * promise the last one, or its error (an error body as the last line) as a ClientError.
 */
export function uploadStreamed<T>(
  path: string,
  form: FormData,
  onProgress: (sent: number, total: number) => void,
  onLine: (line: Record<string, unknown>) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = post(path, form, 'application/x-ndjson', onProgress, reject);
    let read = 0;
    let last: unknown;
    const take = () => {
      const text = xhr.responseText;
      let end: number;
      while ((end = text.indexOf('\n', read)) >= 0) {
        last = parsed(text.slice(read, end));
        read = end + 1;
        if (isRecord(last)) onLine(last);
      }
    };
    xhr.addEventListener('progress', take);
    xhr.addEventListener('load', () => {
      if (xhr.status < 200 || xhr.status >= 300)
        return reject(failure(xhr.status, xhr.statusText, parsed(xhr.responseText)));
      take();
      const body = last;
      if (body === undefined || typeof propertyOf(body, 'code') === 'string') {
        const status = propertyOf(body, 'status');
        reject(failure(typeof status === 'number' ? status : 500, '', body));
      } else resolve(body as T);
    });
  });
}

function post(
  path: string,
  form: FormData,
  accept: string,
  onProgress: (sent: number, total: number) => void,
  reject: (e: unknown) => void,
): XMLHttpRequest {
  const xhr = new XMLHttpRequest();
  xhr.open('POST', `/api/v1${path}`);
  xhr.setRequestHeader('accept', accept);
  xhr.upload.addEventListener('progress', (e) => {
    if (e.lengthComputable) onProgress(e.loaded, e.total);
  });
  xhr.addEventListener('error', () =>
    reject(new ClientError(0, 'network-error', `No answer from /api/v1${path}.`)),
  );
  xhr.send(form);
  return xhr;
}

function parsed(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return undefined;
  }
}

function failure(status: number, statusText: string, body: unknown): ClientError {
  const code = propertyOf(body, 'code');
  const message = propertyOf(body, 'message');
  if (typeof code === 'string' && typeof message === 'string') return new ClientError(status, code, message);
  return new ClientError(status, 'http-error', `HTTP ${status} ${statusText}`.trim());
}

/** The text of a progress ("1.2 MB of 3.4 MB, 35 %"), for uploads and imports. */
export function bytesText(sent: number, total: number): string {
  const mb = (n: number) =>
    n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;
  return `${mb(sent)} of ${mb(total)}, ${total > 0 ? Math.floor((sent / total) * 100) : 100} %`;
}

/** The message to show for any failure. */
export function errorText(error: unknown): string {
  if (error instanceof ClientError)
    return error.status ? `${error.message} (${error.status} ${error.code})` : error.message;
  return error instanceof Error ? error.message : String(error);
}
