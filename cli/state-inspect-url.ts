// `sigmad state inspect --url URL`: the state report of a running daemon, read over its API
// (`GET /api/v1/state`) instead of opening its directory, so it works from another host.
import { authHeaders } from './stream-commands.js';

const REPORT_PATH = '/api/v1/state';

/** The report at `base` (the daemon's URL, or the route's URL itself); throws with the daemon's answer. */
export async function inspectStateUrl(base: string, tokenEnv: string | undefined): Promise<unknown> {
  const url = new URL(base);
  if (!url.pathname.endsWith(REPORT_PATH)) url.pathname = `${url.pathname.replace(/\/$/, '')}${REPORT_PATH}`;
  const headers = authHeaders(tokenEnv);
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
