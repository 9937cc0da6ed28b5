/** Who is logged in: the identity GET /api/v1/auth/me answers, kept for the views. */
import { configure } from '../client/context.js';
import { api, ClientError } from './api.js';

export interface Identity {
  account: { id: string; name: string };
  user: { id: number; login: string; name: string; isAdmin: boolean };
}

let current: Identity | null = null;

export function identity(): Identity | null {
  return current;
}

/** The session's identity, or null when nobody is logged in. */
export async function resume(): Promise<Identity | null> {
  try {
    return remember(await api<Identity>('GET', '/auth/me'));
  } catch (e) {
    if (e instanceof ClientError && e.status === 401) return remember(null);
    throw e;
  }
}

export async function logIn(account: string, login: string, password: string): Promise<Identity> {
  const body: Record<string, string> = { login, password };
  if (account.trim() !== '') body.account = account.trim();
  return remember(await api<Identity>('POST', '/auth/login', body))!;
}

export async function logOut(): Promise<void> {
  await api('POST', '/auth/logout');
  remember(null);
}

function remember(who: Identity | null): Identity | null {
  current = who;
  // The client library addresses the logged-in account's resources.
  configure({ customer: who?.account.id });
  return who;
}
