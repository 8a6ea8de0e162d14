// The web console (`daemon.ui`): the files `npm run build` wrote to dist/ui, read once at start-up
// and served from memory by the `/ui/` routes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { isLoopbackAddress, parseListenAddress, uiContentType } from '../http/index.js';
import type { UiAsset, UiAssets } from '../http/index.js';
import type { DaemonConfig } from '../protocol/index.js';

/** Where the UI build puts the console: dist/ui beside dist/cli. */
const UI_BUILD_DIR = join(import.meta.dirname, '..', 'ui');

/** Unset `daemon.ui` means on for a listener only this machine reaches (loopback or a unix socket). */
export function uiEnabled(config: DaemonConfig): boolean {
  if (config.ui !== undefined) return config.ui;
  const addr = parseListenAddress(config.api.addr);
  return !('error' in addr) && (addr.kind === 'unix' || isLoopbackAddress(addr.host));
}

/** The console's files, or undefined when it is off or was never built (logged: the routes then answer 404). */
export function loadDaemonUi(config: DaemonConfig, log: Logger, dir = UI_BUILD_DIR): UiAssets | undefined {
  if (!uiEnabled(config)) return undefined;
  const read = (path: string): UiAsset => ({ contentType: uiContentType(path), body: readFileSync(path) });
  try {
    const assets = new Map<string, UiAsset>();
    for (const build of readdirSync(join(dir, 'assets'))) {
      for (const file of readdirSync(join(dir, 'assets', build))) assets.set(`${build}/${file}`, read(join(dir, 'assets', build, file)));
    }
    return { index: read(join(dir, 'index.html')), assets };
  } catch (error) {
    log.child({ component: 'ui' }).warn({ dir, err: error }, 'web console not built; /ui/ is unavailable (npm run build builds it)');
    return undefined;
  }
}
