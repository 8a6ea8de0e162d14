// The web console's files as served by the real daemon on both HTTP adapters: content types, the
// cache policy (page revalidated, hashed assets immutable), the Content-Security-Policy, the /ui
// redirect, unknown assets, and --ui=false.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ROOT, startDaemon } from './harness.js';

const RULES = join(FIXTURES, 'rules');

beforeAll(ensureBuilt, 180_000);

describe.each(['uws', 'node'] as const)('web console files over the %s adapter', (adapter) => {
  it('serves the page, its hashed assets and the redirect with the right headers', async () => {
    const d = await startDaemon(['--rules', RULES, '--input', 'http', '--api-addr', '127.0.0.1:0', '--http-adapter', adapter, '--detect-workers', '0']);
    expect(d.logs.some((l) => l.includes(`"adapter":"${adapter}"`))).toBe(true);

    const redirect = await d.request({ method: 'GET', url: '/ui' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers['location']).toBe('ui/');

    const page = await d.request({ method: 'GET', url: '/ui/' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    const csp = page.headers['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // No inline script or style: everything the page runs is a file the CSP allows.
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);

    const referenced = [...page.text.matchAll(/(?:src|href)="(assets\/[0-9a-f]{16}\/[^"]+)"/g)].map((m) => m[1] as string);
    const dir = `assets/${readdirSync(join(ROOT, 'dist/ui/assets'))[0] ?? ''}`;
    expect(referenced.sort()).toEqual([`${dir}/console.css`, `${dir}/main.js`]);
    for (const path of referenced) {
      const asset = await d.request({ method: 'GET', url: `/ui/${path}` });
      expect(asset.status, path).toBe(200);
      expect(asset.headers['content-type']).toBe(path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(asset.headers['content-security-policy']).toBe(csp);
    }
    // Modules import their siblings from the same hashed directory.
    const main = await d.request({ method: 'GET', url: `/ui/${dir}/main.js` });
    const siblings = [...main.text.matchAll(/from '\.\/([a-z-]+\.js)'/g)].map((m) => m[1] as string);
    expect(siblings.length).toBeGreaterThan(3);
    for (const s of siblings) expect((await d.request({ method: 'GET', url: `/ui/${dir}/${s}` })).status, s).toBe(200);

    const missing = await d.request({ method: 'GET', url: '/ui/assets/0000000000000000/main.js' });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ error: 'no such web console asset' });
    d.kill();
    await d.exited;
  });
});

describe('--ui=false', () => {
  it('turns the console off: /ui/ answers 404 with a hint', async () => {
    const d = await startDaemon(['--rules', RULES, '--input', 'http', '--api-addr', '127.0.0.1:0', '--ui=false', '--detect-workers', '0']);
    const page = await d.request({ method: 'GET', url: '/ui/' });
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toBe('application/json');
    expect(JSON.parse(page.text)).toMatchObject({ error: 'web console disabled', hint: expect.stringContaining('--ui=true') });
    d.kill();
    await d.exited;
  });
});
