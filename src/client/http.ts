/**
 * The library's HTTP: fetch with the session cookie (or the configured API token), Atom XML or
 * JSON bodies, and every failure as a ClientError carrying the server's {status, code, message}.
 */
import { ATOM_MEDIA_TYPE, atomFromJson, AtomFormatError, type AtomDocument } from '../atom/format.js';
import { ClientError } from './errors.js';
import { settings } from './context.js';
import { readAtomXml } from './xml.js';

export type Format = 'xml' | 'json';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** Atom XML text, or a JSON-form document. */
  body?: string | AtomDocument;
  /** The form asked of the server (default xml). */
  format?: Format;
}

/** Sends a request and reads the Atom document it answers. */
export async function requestAtom(request: HttpRequest): Promise<AtomDocument> {
  const format = request.format ?? 'xml';
  const headers: Record<string, string> = {
    accept: format === 'json' ? 'application/json' : ATOM_MEDIA_TYPE,
  };
  let body: string | undefined;
  if (typeof request.body === 'string') {
    body = request.body;
    headers['content-type'] = `${ATOM_MEDIA_TYPE}; charset=utf-8`;
  } else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] = 'application/json';
  }
  const response = await send(request.method, request.url, headers, body);
  const text = await response.text();
  if (format === 'json' || /json/i.test(response.headers.get('content-type') ?? '')) {
    try {
      return atomFromJson(JSON.parse(text));
    } catch (e) {
      const why = e instanceof AtomFormatError ? e.message : 'not JSON';
      throw new ClientError(response.status, 'invalid-json', `The answer is not an Atom document: ${why}.`);
    }
  }
  return readAtomXml(text, response.status);
}

/** Sends a request and reads the JSON it answers. */
export async function requestJson<T>(method: HttpRequest['method'], url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await send(method, url, headers, body === undefined ? undefined : JSON.stringify(body));
  const text = await response.text();
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ClientError(response.status, 'invalid-json', 'The answer is not JSON.');
  }
}

/** fetch, with the credentials; a non-2xx answer becomes its ClientError. */
export async function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: BodyInit,
): Promise<Response> {
  if (settings.token !== undefined) headers.authorization = `Bearer ${settings.token}`;
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, credentials: 'same-origin' });
  } catch (e) {
    throw new ClientError(0, 'network-error', `No answer from ${url}: ${(e as Error).message}`);
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

async function errorOf(response: Response): Promise<ClientError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { status?: unknown; code?: unknown; message?: unknown };
    if (typeof body.code === 'string' && typeof body.message === 'string')
      return new ClientError(response.status, body.code, body.message);
  } catch {
    // not the JSON error body
  }
  return new ClientError(
    response.status,
    'http-error',
    `HTTP ${response.status} ${response.statusText}`.trim(),
  );
}
