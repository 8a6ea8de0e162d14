// Overview: counters of `/api/v1/status`, rates from successive reads drawn as sparklines, readiness,
// reloads and the busiest rules (from `/metrics`).
import { describeFailure, getJson, request } from './api.js';
import { facts, h, replaceChildren, show, table } from './dom.js';
import { parseMetrics, type Sample } from './metrics-text.js';
import { sparkline } from './sparkline.js';

const POLL_MS = 2_000;
const KEEP_SAMPLES = 60;
const TOP_RULES = 10;

interface Status {
  readonly status: string;
  readonly detection_rules: number;
  readonly correlation_rules: number;
  readonly correlation_state_entries: number;
  readonly events_processed: number;
  readonly detection_matches: number;
  readonly correlation_matches: number;
  readonly uptime_seconds: number;
}

export function renderOverview(root: HTMLElement): () => void {
  const samples: Sample[] = [];
  const body = h('div', { attrs: { 'aria-live': 'off' } }, 'Loading…');
  replaceChildren(root, h('h2', {}, 'Overview'), body);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const poll = async () => {
    const [status, ready, metrics] = await Promise.all([getJson<Status>('api/v1/status'), getJson<{ status?: string; reason?: string; error?: string }>('readyz'), metricsText()]);
    if (stopped) return;
    if (!status.ok) {
      replaceChildren(body, h('p', { class: 'notice error' }, describeFailure(status)));
    } else {
      const s = status.value;
      samples.push({ at: performance.now() / 1000, events: s.events_processed, matches: s.detection_matches + s.correlation_matches });
      if (samples.length > KEEP_SAMPLES) samples.shift();
      const families = parseMetrics(metrics);
      const value = (name: string) => families.get(name)?.[0]?.value;
      const readiness = ready.ok ? 'ready' : `not ready: ${ready.error}`;
      const top = (families.get('svc_detection_matches_by_rule_total') ?? [])
        .filter((m) => m.value > 0)
        .sort((a, b) => b.value - a.value)
        .slice(0, TOP_RULES);
      const eventsRate = sparkline(samples, 'events', 'events per second');
      const matchesRate = sparkline(samples, 'matches', 'matches per second');
      replaceChildren(
        body,
        h(
          'div',
          { class: 'cards' },
          card('Events/s', eventsRate.current, eventsRate.svg),
          card('Matches/s', matchesRate.current, matchesRate.svg),
        ),
        facts([
          ['Status', s.status],
          ['Readiness', readiness],
          ['Reloads', metrics === undefined ? 'needs metrics:read' : `${value('svc_reloads_total') ?? 0} (${value('svc_reloads_failed_total') ?? 0} failed)`],
          ['Uptime', `${Math.round(s.uptime_seconds)} s`],
          ['Events processed', s.events_processed],
          ['Detection matches', s.detection_matches],
          ['Correlation matches', s.correlation_matches],
          ['Detection rules', s.detection_rules],
          ['Correlation rules', s.correlation_rules],
          ['Correlation state entries', s.correlation_state_entries],
        ]),
        table(
          'Top rules by detections',
          ['Rule', 'Level', 'Detections'],
          top.map((m) => [show(m.labels['rule_title'] ?? ''), m.labels['level'] ?? '', m.value]),
          metrics === undefined ? 'the token cannot read /metrics.' : 'no detections yet.',
        ),
      );
    }
    timer = setTimeout(() => void poll(), POLL_MS);
  };

  void poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

async function metricsText(): Promise<string | undefined> {
  try {
    const res = await request('metrics');
    return res.ok ? await res.text() : undefined;
  } catch {
    return undefined;
  }
}

function card(title: string, value: string, graph: SVGElement): HTMLElement {
  return h('section', { class: 'card' }, h('h3', {}, title), h('p', { class: 'big' }, value), graph);
}
