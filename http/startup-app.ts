import { DEFAULT_MAX_BODY_BYTES } from './http-app.js';
import type { HttpApp, Req, Res } from './handler.js';
import { compilePathMatcher } from './path-matcher.js';
import { sendError, sendJson } from './respond.js';
import type { Route } from './route.js';

export interface StartupAppParts {
  /** What start-up is doing now (`loading rules`, `replaying state`, ...), named in the 503 body. */
  readonly phase: () => string;
  readonly metrics: () => Promise<{ readonly contentType: string; readonly text: string }>;
}

/** The app bound before the daemon is built; `open` hands every later request to the real one. */
export interface StartupApp extends HttpApp {
  open(app: HttpApp): void;
}

/**
 * What the listener serves while the daemon starts: liveness, `/readyz` 503 `starting`, metrics;
 * every other route of the table answers 503 `daemon starting` naming the phase (ingest included,
 * so nothing is accepted before replay ends), unknown paths 404 as usual.
 */
export function createStartupApp(routes: readonly Route[], parts: StartupAppParts): StartupApp {
  const limits = new Map<string, number>();
  for (const r of routes) limits.set(r.path, Math.max(limits.get(r.path) ?? 0, r.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));
  const paths = compilePathMatcher([...limits]);
  let opened: HttpApp | undefined;

  const serveStarting = async (req: Omit<Req, 'params'>, res: Res): Promise<void> => {
    const found = paths.match(req.path);
    if (found.kind === 'none') return sendError(res, 'route_not_found', { path: req.path });
    if (found.kind === 'bad_path') return sendError(res, 'request_invalid', { detail: 'malformed percent-encoding in path' });
    if (req.method === 'GET' && req.path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && req.path === '/readyz') return sendError(res, 'not_ready');
    if (req.method === 'GET' && req.path === '/metrics') {
      const { contentType, text } = await parts.metrics();
      if (!res.closed) res.status(200).header('content-type', contentType).end(text);
      return;
    }
    sendError(res, 'daemon_starting', { phase: parts.phase() });
  };

  return {
    open(app) {
      opened = app;
    },
    bodyLimit(method, path) {
      if (opened !== undefined) return opened.bodyLimit(method, path);
      const found = paths.match(path);
      return found.kind === 'found' ? found.value : DEFAULT_MAX_BODY_BYTES;
    },
    rejectOversizedBody(res) {
      if (opened !== undefined) return opened.rejectOversizedBody(res);
      res.header('connection', 'close');
      sendError(res, 'body_too_large');
    },
    handle(req, res) {
      if (opened !== undefined) return opened.handle(req, res);
      return serveStarting(req, res).catch(() => {
        if (!res.closed) sendError(res, 'internal_error');
      });
    },
  };
}
