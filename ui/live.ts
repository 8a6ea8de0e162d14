// Live: the detection tail (`GET /api/v1/detections/stream`) read with fetch and a ReadableStream,
// one session per minute so each summary's dropped count arrives, reconnecting with backoff.
import { describeFailure, request } from './api.js';
import { button, field, h, input, notice, replaceChildren, select, show } from './dom.js';
import { hostOfDetection, ruleKey, silenceRoute, triageRoute } from './prefill.js';

export const LEVELS = ['informational', 'low', 'medium', 'high', 'critical'] as const;
const MAX_ROWS = 500;
/** Each session ends after this, with a summary line, and the next one starts at once. */
const SESSION = '60s';
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 10_000;

type Detection = Readonly<Record<string, unknown>>;

export function renderLive(root: HTMLElement, params: URLSearchParams): () => void {
  let session: AbortController | undefined;
  let paused = false;
  let held: Detection[] = [];
  let streamed = 0;
  let dropped = 0;

  const level = select('level', [['', 'any level'], ...LEVELS.map((l) => [l, `${l} or above`] as const)], params.get('level') ?? '');
  const rule = input('rule', params.get('rule') ?? '', { type: 'search', placeholder: 'title or id contains…' });
  const pause = button('Pause', () => togglePause());
  const state = h('span', { class: 'conn', attrs: { role: 'status', 'aria-live': 'polite' } }, 'connecting…');
  const counters = h('span', { class: 'counters' });
  const tbody = h('tbody', { attrs: { id: 'live-rows' } });
  const msg = notice();

  const filters = h(
    'form',
    { class: 'toolbar', on: { submit: (e) => (e.preventDefault(), restart()) } },
    field('Minimum level', level),
    field('Rule', rule),
    h('button', { attrs: { type: 'submit' } }, 'Apply filters'),
    pause,
    button('Clear', () => tbody.replaceChildren()),
  );
  replaceChildren(
    root,
    h('h2', {}, 'Live detections'),
    filters,
    h('p', { class: 'status-line' }, state, ' ', counters),
    msg,
    h(
      'table',
      { class: 'live' },
      h('caption', {}, 'Newest first'),
      h('thead', {}, h('tr', {}, ...['Received', 'Level', 'Rule', 'Matched fields', 'Actions'].map((c) => h('th', { attrs: { scope: 'col' } }, c)))),
      tbody,
    ),
  );

  const updateCounters = () => {
    counters.textContent = `${streamed} streamed · ${dropped} dropped by the daemon${held.length > 0 ? ` · ${held.length} held while paused` : ''}`;
  };

  const togglePause = () => {
    paused = !paused;
    pause.textContent = paused ? 'Resume' : 'Pause';
    pause.setAttribute('aria-pressed', String(paused));
    if (!paused) {
      for (const d of held) addRow(d);
      held = [];
    }
    updateCounters();
  };

  const addRow = (d: Detection) => {
    const lvl = typeof d['level'] === 'string' ? d['level'] : 'none';
    const fields = Array.isArray(d['matched_fields']) ? (d['matched_fields'] as { field?: unknown; value?: unknown }[]) : [];
    const shown = fields.slice(0, 4).map((f) => h('li', {}, `${show(f.field, 60)} = ${show(f.value, 120)}`));
    const key = ruleKey(d);
    const title = show(d['rule_title'] ?? key, 200);
    tbody.prepend(
      h(
        'tr',
        { class: `level-${lvl}` },
        h('td', {}, new Date().toLocaleTimeString()),
        h('td', {}, h('span', { class: `badge level-${lvl}` }, lvl)),
        h('td', {}, title, h('br'), h('small', {}, show(d['rule_id'] ?? '', 80))),
        h('td', {}, h('ul', { class: 'fields' }, ...shown)),
        h(
          'td',
          { class: 'row-actions' },
          h('a', { class: 'button', href: silenceRoute(key, hostOfDetection(d), `silenced from the live view: ${title}`) }, 'Silence 1h'),
          h('a', { class: 'button', href: triageRoute({ scope: 'detection', rule_id: key }) }, 'Triage'),
        ),
      ),
    );
    while (tbody.rows.length > MAX_ROWS) tbody.lastElementChild?.remove();
  };

  const onLine = (line: string) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const summary = (value as { svc_tail_summary?: { dropped?: unknown } }).svc_tail_summary;
    if (summary !== undefined) dropped += typeof summary.dropped === 'number' ? summary.dropped : 0;
    else {
      streamed++;
      if (!paused) addRow(value as Detection);
      else if (held.length < MAX_ROWS) held.push(value as Detection);
    }
    updateCounters();
  };

  /** One session: resolves when it ended by itself, throws on an answer that retrying may cure. */
  const stream = async (signal: AbortSignal): Promise<'ended' | 'final'> => {
    const q = new URLSearchParams({ duration: SESSION });
    if (level.value !== '') q.set('level', level.value);
    if (rule.value.trim() !== '') q.set('rule', rule.value.trim());
    // The daemon sends its answer's head with the first line: a pending request is a listening one.
    state.textContent = 'listening for detections';
    const res = await request(`api/v1/detections/stream?${q}`, { signal });
    if (!res.ok || res.body === null) {
      const body = (await res.json().catch(() => ({}))) as { error?: string; hint?: string };
      const text = describeFailure({ status: res.status, error: body.error ?? `HTTP ${res.status}`, ...(body.hint !== undefined ? { hint: body.hint } : {}) });
      // A bad filter, a missing token or a disabled tail will not cure themselves; a full house (409) or start-up may.
      if ([400, 401, 403, 404].includes(res.status) || (res.status === 503 && body.error === 'detection tail disabled')) {
        msg.show(text, 'error');
        return 'final';
      }
      throw new Error(text);
    }
    msg.show('');
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const lines = (rest + value).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') onLine(line);
    }
    return 'ended';
  };

  const run = async (signal: AbortSignal) => {
    let backoff = BACKOFF_MIN_MS;
    while (!signal.aborted) {
      try {
        if ((await stream(signal)) === 'final') {
          state.textContent = 'stopped';
          return;
        }
        backoff = BACKOFF_MIN_MS;
      } catch (error) {
        if (signal.aborted) return;
        state.textContent = `disconnected (${error instanceof Error ? error.message : String(error)}); reconnecting in ${(backoff / 1000).toFixed(1)} s`;
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      }
    }
  };

  const restart = () => {
    session?.abort();
    session = new AbortController();
    state.textContent = 'connecting…';
    void run(session.signal);
  };

  const onToken = () => restart();
  window.addEventListener('sigmad-token', onToken);
  updateCounters();
  restart();
  return () => {
    window.removeEventListener('sigmad-token', onToken);
    session?.abort();
  };
}
