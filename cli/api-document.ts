// A JSON document read over a running daemon's API by the client commands (`state inspect --url`,
// `scorecard --from`): the daemon's URL or the route's URL itself, with an optional bearer token.
import { authHeaders } from './stream-commands.js';

/** The document of `routePath` at `base`; throws (exit code 1) with the daemon's answer or why it is unreachable. */
export async function fetchApiDocument(base: string, routePath: string, headers: Record<string, string>): Promise<unknown> {
  const url = new URL(base);
  if (!url.pathname.endsWith(routePath)) url.pathname = `${url.pathname.replace(/\/$/, '')}${routePath}`;
  let res: Response;
  try {
    res = await fetch(url, { headers });
  } catch (error) {
    throw Object.assign(new Error(`cannot reach ${url.href}: ${error instanceof Error ? error.message : String(error)}`), { exitCode: 1 });
  }
  const text = await res.text();
  if (!res.ok) throw Object.assign(new Error(`${url.href} answered ${res.status}: ${text.trim()}`), { exitCode: 1 });
  return JSON.parse(text) as unknown;
}

/** `sigmad state inspect --url URL`: the state report of a running daemon (`GET /api/v1/state`), so it works from another host. */
export function inspectStateUrl(base: string, tokenEnv: string | undefined): Promise<unknown> {
  return fetchApiDocument(base, '/api/v1/state', authHeaders(tokenEnv));
}
