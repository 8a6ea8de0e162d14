import type { Res } from './handler.js';
import { sendError } from './respond.js';
import { defineRoute, type Route } from './route.js';

/**
 * The web console's static files (`/ui/`): the page, and assets under a directory named after the
 * hash of the whole build, so an asset URL never changes content (cached for a year) while the page
 * is revalidated on every load and picks up a new build at once.
 */

/** One file of the built console, held in memory. */
export interface UiAsset {
  readonly contentType: string;
  readonly body: Uint8Array;
}

export interface UiAssets {
  readonly index: UiAsset;
  /** Keyed by `<build>/<file>`. */
  readonly assets: ReadonlyMap<string, UiAsset>;
}

/** Only the daemon's own scripts, styles and API: no inline script or style, no framing, no plugins. */
const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  json: 'application/json',
};

/** The content type of a console file by its extension; unknown ones are served as bytes. */
export function uiContentType(name: string): string {
  return CONTENT_TYPES[name.slice(name.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

function serveAsset(res: Res, asset: UiAsset, cacheControl: string): void {
  if (res.closed) return;
  res
    .status(200)
    .header('content-type', asset.contentType)
    .header('cache-control', cacheControl)
    .header('content-security-policy', UI_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .end(asset.body);
}

const feature = { select: (d: { readonly ui?: UiAssets }) => d.ui, disabled: 'ui_disabled' } as const;

export const UI_ROUTES: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/ui',
    schema: {},
    feature,
    // Relative, so the console also works behind a proxy that mounts the daemon under a prefix.
    handle: (_req, res) => {
      if (!res.closed) res.status(308).header('location', 'ui/').header('content-type', 'text/plain; charset=utf-8').end('ui/');
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ui/',
    schema: {},
    feature,
    handle: (_req, res, _d, ui) => serveAsset(res, ui.index, 'no-cache'),
  }),
  defineRoute({
    method: 'GET',
    path: '/ui/assets/{build}/{file}',
    schema: {},
    feature,
    handle: (req, res, _d, ui) => {
      const asset = ui.assets.get(`${req.params['build'] ?? ''}/${req.params['file'] ?? ''}`);
      if (asset === undefined) return sendError(res, 'ui_asset_not_found', { path: req.path });
      serveAsset(res, asset, IMMUTABLE);
    },
  }),
];
