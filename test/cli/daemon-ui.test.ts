import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadDaemonConfig } from '../../cli/config.js';
import { loadDaemonUi, uiEnabled } from '../../cli/daemon-ui.js';

const config = (flags: Record<string, unknown>, env: Record<string, string> = {}) => loadDaemonConfig({ env, flags }).config;
const silent = pino({ level: 'silent' });

describe('daemon.ui', () => {
  it('is on by default only where the API listens on loopback or a unix socket', () => {
    expect(uiEnabled(config({ apiAddr: '127.0.0.1:9090' }))).toBe(true);
    expect(uiEnabled(config({ apiAddr: '[::1]:9090' }))).toBe(true);
    expect(uiEnabled(config({ apiAddr: 'unix:///run/sigmad.sock' }))).toBe(true);
    expect(uiEnabled(config({ apiAddr: '0.0.0.0:9090', allowPlaintext: true }))).toBe(false);
    expect(uiEnabled(config({ apiAddr: '10.0.0.5:9090', allowPlaintext: true }))).toBe(false);
  });

  it('follows --ui and SVC_DAEMON__UI either way, the flag winning', () => {
    expect(uiEnabled(config({ apiAddr: '127.0.0.1:9090', ui: 'false' }))).toBe(false);
    expect(uiEnabled(config({ apiAddr: '0.0.0.0:9090', allowPlaintext: true, ui: true }))).toBe(true);
    expect(uiEnabled(config({ apiAddr: '127.0.0.1:9090' }, { SVC_DAEMON__UI: 'false' }))).toBe(false);
    expect(uiEnabled(config({ apiAddr: '127.0.0.1:9090', ui: 'true' }, { SVC_DAEMON__UI: 'false' }))).toBe(true);
    expect(() => config({ ui: 'maybe' })).toThrow(/--ui: expected true or false/);
  });

  it('loads the built files into memory, and none when the console was never built', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sigmad-ui-'));
    mkdirSync(join(dir, 'assets', 'abc'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    writeFileSync(join(dir, 'assets', 'abc', 'main.js'), 'export {};');
    writeFileSync(join(dir, 'assets', 'abc', 'console.css'), 'body{}');
    const ui = loadDaemonUi(config({ apiAddr: '127.0.0.1:9090' }), silent, dir);
    expect(ui?.index.contentType).toBe('text/html; charset=utf-8');
    expect([...(ui?.assets.entries() ?? [])].map(([k, a]) => [k, a.contentType]).sort()).toEqual([
      ['abc/console.css', 'text/css; charset=utf-8'],
      ['abc/main.js', 'text/javascript; charset=utf-8'],
    ]);
    expect(loadDaemonUi(config({ apiAddr: '127.0.0.1:9090' }), silent, join(dir, 'missing'))).toBeUndefined();
    expect(loadDaemonUi(config({ apiAddr: '127.0.0.1:9090', ui: false }), silent, dir)).toBeUndefined();
  });
});
