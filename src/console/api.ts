/** The console's calls to the JSON API (/api/v1), through the client library's HTTP layer. */
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
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v1${path}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded, e.total);
    });
    xhr.addEventListener('load', () => {
      let body: { code?: unknown; message?: unknown } | undefined;
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300 && body !== undefined) resolve(body as T);
      else if (typeof body?.code === 'string' && typeof body.message === 'string')
        reject(new ClientError(xhr.status, body.code, body.message));
      else reject(new ClientError(xhr.status, 'http-error', `HTTP ${xhr.status} ${xhr.statusText}`.trim()));
    });
    xhr.addEventListener('error', () =>
      reject(new ClientError(0, 'network-error', `No answer from /api/v1${path}.`)),
    );
    xhr.send(form);
  });
}

/** A progress bar with its text ("1.2 MB of 3.4 MB, 35 %"), for uploads and imports. */
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
