// The daemon's public API as the console uses it: relative URLs (so a proxy may mount the daemon
// under a prefix) and the bearer token from sessionStorage when the user gave one.

const TOKEN_KEY = 'sigmad.token';
/** Paths are relative to the page at `<prefix>/ui/`. */
const BASE = '../';

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token: string | null): void {
  if (token === null || token === '') sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
  window.dispatchEvent(new Event('sigmad-token'));
}

/** Fired when the daemon answers 401: the shell asks for a token. */
export const UNAUTHORIZED_EVENT = 'sigmad-unauthorized';

export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = getToken();
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  const res = await fetch(`${BASE}${path}`, { ...init, headers, cache: 'no-store' });
  if (res.status === 401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
  return res;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly status: number; readonly error: string; readonly hint?: string };

async function result<T>(res: Response): Promise<Result<T>> {
  const body: unknown = await res.json().catch(() => undefined);
  if (res.ok) return { ok: true, value: body as T };
  const b = (typeof body === 'object' && body !== null ? body : {}) as { error?: unknown; hint?: unknown; detail?: unknown };
  const error = typeof b.error === 'string' ? b.error : `HTTP ${res.status}`;
  const detail = typeof b.detail === 'string' ? `: ${b.detail}` : '';
  return { ok: false, status: res.status, error: `${error}${detail}`, ...(typeof b.hint === 'string' ? { hint: b.hint } : {}) };
}

async function call<T>(path: string, init: RequestInit): Promise<Result<T>> {
  try {
    return await result<T>(await request(path, init));
  } catch (error) {
    return { ok: false, status: 0, error: `cannot reach the daemon (${error instanceof Error ? error.message : String(error)})` };
  }
}

export function getJson<T>(path: string): Promise<Result<T>> {
  return call<T>(path, {});
}

export function send<T>(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<Result<T>> {
  return call<T>(path, body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}

export function describeFailure(r: { readonly status: number; readonly error: string; readonly hint?: string }): string {
  return r.hint === undefined ? r.error : `${r.error}. ${r.hint}`;
}
