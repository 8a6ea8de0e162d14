// The web console in a real browser (Debian's chromium driven by playwright-core) against a real
// daemon with a bearer token, the detection tail, an alert pipeline and dispositions: every view
// opens, events posted over HTTP appear live, a silence created in the UI mutes and deleting it
// unmutes, a verdict is recorded, XSS payloads in event fields stay inert, contrast is readable, the
// keyboard reaches everything, and nothing logs an error. Screenshots go to a temporary folder, or to
// docs/screenshots/ (the README's) with SIGMAD_UPDATE_SCREENSHOTS=1, so a test run leaves the tree clean.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, ROOT, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = process.env.SIGMAD_UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs/screenshots') : mkdtempSync(join(tmpdir(), 'sigmad-ui-shots-'));
const TOKEN = 'ui-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const WHOAMI = '6f1a0c1e-0000-4000-8000-000000000001';
const XSS = ['whoami <script>window.__xss=1</script>', 'whoami <img src=x onerror="window.__xss=2">', 'whoami javascript:window.__xss=3'];
/** Endpoints this daemon has off on purpose: the views show the daemon's "disabled" answer. */
const DISABLED = ['/api/v1/fields', '/api/v1/schemas'];
/** Refused (409) while the test holds every tail session. */
const TAIL = '/api/v1/detections/stream';

const whoami = (host: string, cmd: string) => ({ EventID: 1, CommandLine: cmd, Computer: host, Link: 'javascript:window.__xss=4' });
const failedLogon = (host: string) => ({ EventID: 4625, Computer: host });

/** WCAG contrast of every visible text against its effective background; returns the failures. */
const CONTRAST_CHECK = `(() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
  const bg = (el) => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c; } return [255, 255, 255]; };
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || n.textContent.trim() === '' || el.getClientRects().length === 0 || el.closest('dialog:not([open])')) continue;
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(bg(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) bad.push(el.tagName + ' "' + n.textContent.trim().slice(0, 30) + '" ' + ratio.toFixed(2));
  }
  return bad;
})()`;

describe('web console in chromium', () => {
  let d: RunningDaemon;
  let context: BrowserContext;
  let page: Page;
  const profile = mkdtempSync(join(tmpdir(), 'sigmad-chromium-'));
  const problems: string[] = [];
  let tokenGiven = false;

  const post = async (events: readonly unknown[]) => {
    const r = await d.request({ method: 'POST', url: '/api/v1/events', headers: AUTH, body: ndjson(events) });
    expect(r.status).toBe(200);
  };
  const metric = async (series: string) => {
    const text = (await d.request({ method: 'GET', url: '/metrics', headers: AUTH })).text;
    return Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.slice(series.length + 1) ?? Number.NaN);
  };
  const view = async (name: string) => {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name, exact: true }).click();
    await page.locator(`nav a[aria-current="page"]:text-is("${name}")`).waitFor();
  };
  const shoot = async (name: string) => {
    expect(await page.evaluate(CONTRAST_CHECK), `contrast in ${name}`).toEqual([]);
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const liveRow = (text: string) => page.locator('#live-rows tr', { hasText: text });

  beforeAll(async () => {
    await ensureBuilt();
    const dir = tempDir('ui');
    const pipeline = join(dir, 'alerts.yaml');
    writeFileSync(pipeline, 'group:\n  by: [event.Computer]\n  group_wait: 1s\n  group_interval: 1s\n  repeat_interval: 1h\n  resolve_timeout: 1h\n');
    // Risk entities keyed by the host the incidents group by: an incident's detail lists its host's.
    const risk = join(dir, 'risk.yaml');
    writeFileSync(risk, 'score: { level_scores: { high: 50, low: 5 } }\nobjects: [{ type: computer, selector: event.Computer }]\nincident: { window: 1h, score_threshold: 100000, cooldown: 1h }\n');
    d = await startDaemon(
      ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--include-event', '--emit-referenced', '--enable-tail', '--enable-dispositions',
        '--alert-pipeline', pipeline, '--risk', risk, '--api-token-env', 'SIGMAD_UI_TOKEN', '--output', `file://${join(dir, 'out.ndjson')}`, '--detect-workers', '0'],
      { env: { SIGMAD_UI_TOKEN: TOKEN } },
    );
    mkdirSync(SHOTS, { recursive: true });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      viewport: { width: 1280, height: 800 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('dialog', (dlg) => {
      problems.push(`dialog: ${dlg.message()}`);
      void dlg.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const url = m.location().url;
      // A refused request shows as a console error; only the expected ones may: 401 before the token, disabled features.
      const refused = m.text().startsWith('Failed to load resource');
      const expected = refused && ((!tokenGiven && m.text().includes('401')) || DISABLED.some((p) => url.includes(p)) || (url.includes(TAIL) && m.text().includes('409')));
      if (!expected) problems.push(`console error: ${m.text()} (${url})`);
    });
  }, 180_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `/tmp/console-fail-${ctx.task.name.slice(0, 20).replace(/\W/g, '_')}.png` });
  });

  afterAll(async () => {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
    if (process.env.SIGMAD_UPDATE_SCREENSHOTS !== '1') rmSync(SHOTS, { recursive: true, force: true });
  });

  it('asks for the token once, keeps it in sessionStorage, and shows the overview', async () => {
    await page.goto(`http://127.0.0.1:${d.address.kind === 'tcp' ? d.address.port : 0}/ui/`);
    const input = page.getByLabel('Token', { exact: true });
    await input.waitFor();
    tokenGiven = true;
    await input.fill(TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    expect(await page.evaluate("sessionStorage.getItem('sigmad.token')")).toBe(TOKEN);
    await page.locator('dd', { hasText: /^ready$/ }).waitFor();
    await expect.poll(() => page.locator('.facts dt', { hasText: 'Detection rules' }).locator('xpath=following-sibling::dd[1]').textContent()).toBe('2');
  });

  it('streams detections live with level colours, filters and pause; XSS payloads stay text', async () => {
    await view('Live');
    await page.getByText('listening for detections').waitFor();
    await post([...XSS.map((c) => whoami('h1', c)), failedLogon('h7')]);
    for (const c of XSS) await liveRow(c).waitFor();
    await expect.poll(() => liveRow('Failed Logon').count()).toBe(1);
    expect(await liveRow('Failed Logon').first().getAttribute('class')).toBe('level-low');
    expect(await liveRow(XSS[0] as string).getAttribute('class')).toBe('level-high');
    // Rendered as text: no element was made from the payloads, nothing ran.
    expect(await page.locator('#live-rows img, #live-rows script').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();

    // The level filter goes to the server: a low result is not streamed any more.
    await page.getByLabel('Minimum level').selectOption('high');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('listening for detections').waitFor();
    await post([failedLogon('h8'), whoami('h2', 'whoami /after-filter')]);
    await liveRow('whoami /after-filter').waitFor();
    expect(await liveRow('Failed Logon').count()).toBe(1);

    await page.getByRole('button', { name: 'Pause' }).click();
    await post([whoami('h2', 'whoami /while-paused')]);
    await page.getByText('1 held while paused').waitFor();
    expect(await liveRow('whoami /while-paused').count()).toBe(0);
    await page.getByRole('button', { name: 'Resume' }).click();
    await liveRow('whoami /while-paused').waitFor();
    await shoot('live');
  });

  it('creates a silence from a detection, which mutes, and deletes it, which unmutes', async () => {
    await liveRow(XSS[0] as string).getByRole('link', { name: 'Silence 1h' }).click();
    await page.getByRole('heading', { name: 'Silences' }).waitFor();
    const values = page.locator('fieldset.matcher input[name=value]');
    expect([await values.nth(0).inputValue(), await values.nth(1).inputValue()]).toEqual([WHOAMI, 'h1']);
    expect(await page.locator('fieldset.matcher input[name=selector]').nth(1).inputValue()).toBe('event.Computer');
    await page.getByRole('button', { name: 'Create silence' }).click();
    await page.getByText(/^Silence .* created\.$/).waitFor();
    await page.locator('table .badge.state-active').waitFor();
    await shoot('silences');

    const silencedBefore = await metric('svc_silenced_total');
    await post([whoami('h1', 'whoami /muted')]);
    await expect.poll(() => metric('svc_silenced_total'), { timeout: 10_000 }).toBe(silencedBefore + 1);

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText(/^Silence .* deleted\.$/).waitFor();
    await page.getByText('Silences: none.').waitFor();
    await view('Live');
    await page.getByText('listening for detections').waitFor();
    await post([whoami('h1', 'whoami /unmuted')]);
    await liveRow('whoami /unmuted').waitFor();
    expect(await liveRow('whoami /muted').count()).toBe(0);
  });

  it('lists incidents, shows one with its bundle, and records a verdict from it', async () => {
    const open = await waitFor(async () => {
      const r = await d.json({ method: 'GET', url: '/api/v1/incidents', headers: AUTH });
      const incidents = (r.body['incidents'] ?? []) as { incident_id: string; group_by?: Record<string, string>; bundle_ready?: boolean }[];
      return incidents.find((i) => i.group_by?.['event.Computer'] === 'h1' && i.bundle_ready === true);
    }, 20_000, 'the h1 incident to open');
    await view('Incidents');
    await page.getByRole('link', { name: open.incident_id }).click();
    await page.locator('pre.bundle').waitFor();
    expect(await page.locator('pre.bundle').textContent()).toContain('Whoami Execution');
    const entity = page.locator('table', { hasText: 'Risk entities of this incident' }).locator('tbody tr');
    await entity.waitFor();
    expect(await entity.locator('td').allTextContents()).toEqual(['computer', 'h1', expect.stringMatching(/^[1-9]\d*$/), '0', expect.stringMatching(/^[1-9]\d*$/)]);
    await page.getByRole('link', { name: 'Silence this rule on this host for 1h' }).waitFor();
    await shoot('incident');
    await view('Incidents');
    await shoot('incidents');

    await page.getByRole('link', { name: open.incident_id }).click();
    await page.getByRole('link', { name: 'Triage this incident' }).click();
    await page.getByRole('heading', { name: 'Triage' }).waitFor();
    expect(await page.getByLabel('Incident id').inputValue()).toBe(open.incident_id);
    await page.getByLabel('Verdict').selectOption('false_positive');
    await page.getByRole('button', { name: 'Record verdict' }).click();
    await page.getByText(/^Recorded \(\d+ accepted\)\.$/).waitFor();
    const row = page.locator('table tr', { hasText: WHOAMI });
    await row.waitFor();
    expect(await row.locator('td').nth(2).textContent()).toBe('1');
    await shoot('triage');
  });

  it('shows sources, fields and schemas, saying "disabled" where the daemon does', async () => {
    await view('Sources');
    await page.getByText('no pipeline declares dynamic sources').waitFor();
    await shoot('sources');
    await view('Fields');
    await page.getByText('Disabled: field observation disabled').waitFor();
    await shoot('fields');
    await view('Schemas');
    await page.getByText(/^Disabled: /).waitFor();
    await shoot('schemas');
    await view('Overview');
    // Two readings make a rate: the line is drawn (flat while idle, so only attached, not visible).
    await page.locator('svg.spark polyline[points*=" "]').first().waitFor({ state: 'attached' });
    // Events while the overview polls move the events/s figure off zero.
    await post(Array.from({ length: 50 }, (_, i) => whoami(`h${10 + (i % 5)}`, `whoami /load-${i}`)));
    await expect.poll(async () => Number(await page.locator('.card .big').first().textContent()), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.locator('table', { hasText: 'Whoami Execution' }).waitFor();
    await shoot('overview');
  });

  it('reaches the views by keyboard with a visible focus ring', async () => {
    await page.goto(page.url().replace(/#.*$/, '#/silences'));
    await page.getByRole('heading', { name: 'Silences' }).waitFor();
    const focused = "({ text: document.activeElement.textContent, label: document.activeElement.closest('label')?.textContent ?? '', outline: getComputedStyle(document.activeElement).outlineStyle })";
    // A view takes the focus when it opens, so Tab goes to its first control and Shift+Tab back to the navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(focused)).toMatchObject({ label: 'Selector', outline: 'solid' });
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(focused)).toMatchObject({ text: 'Token', outline: 'solid' });
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(focused)).toMatchObject({ text: 'Schemas', outline: 'solid' });
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Fields' }).waitFor();
    // Every action is a native button, link or form control, never a clickable div or span.
    for (const name of ['Live', 'Incidents', 'Silences', 'Triage']) {
      await view(name);
      expect(await page.locator('main [onclick], main div[role=button], main span[role=button], main [tabindex]:not([tabindex="-1"]):not(pre)').count(), name).toBe(0);
    }
  });

  it('retries a refused tail with backoff and streams once a session slot frees', async () => {
    // Both tail sessions the daemon allows are taken, so the Live view's request answers 409.
    const port = d.address.kind === 'tcp' ? d.address.port : 0;
    const held: ClientRequest[] = [];
    try {
      const answered = [0, 1].map(
        () =>
          new Promise<number>((resolve, reject) => {
            held.push(get({ host: '127.0.0.1', port, path: TAIL, headers: AUTH }, (res) => resolve(res.statusCode ?? 0)).on('error', reject));
          }),
      );
      // A session's head comes with its first line: one detection makes both answer.
      await waitFor(async () => ((await metric('svc_tail_active_sessions')) === 2 ? true : undefined), 10_000, 'two tail sessions');
      await post([whoami('h5', 'whoami /occupy')]);
      expect(await Promise.all(answered)).toEqual([200, 200]);
      await view('Live');
      await page.getByText(/^disconnected \(tail session capacity reached.*reconnecting in/).waitFor();
    } finally {
      for (const req of held) req.destroy();
    }
    await page.getByText('listening for detections').waitFor({ timeout: 20_000 });
    await post([whoami('h5', 'whoami /after-reconnect')]);
    await liveRow('whoami /after-reconnect').waitFor();
  });

  it('logged no error and ran no injected script', async () => {
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(problems).toEqual([]);
  });
});
