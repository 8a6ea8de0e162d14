// Incidents: the open ones (`/api/v1/incidents`), and one in detail with its bundle (markdown shown
// as preformatted text, never parsed as HTML), its risk entities, and silence / triage actions.
import { describeFailure, getJson, request } from './api.js';
import { facts, h, replaceChildren, show, table, time } from './dom.js';
import { hostOfIncident, silenceRoute, triageRoute } from './prefill.js';

type Incident = Readonly<Record<string, unknown>>;

function pairs(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  return Object.entries(value)
    .map(([k, v]) => `${k}=${show(v, 80)}`)
    .join(', ');
}

export function renderIncidents(root: HTMLElement): () => void {
  const body = h('div', {}, 'Loading…');
  replaceChildren(root, h('h2', {}, 'Open incidents'), body);
  void getJson<{ incidents: Incident[] }>('api/v1/incidents').then((r) => {
    if (!r.ok) return replaceChildren(body, h('p', { class: 'notice error' }, describeFailure(r)));
    const rows = [...r.value.incidents]
      .sort((a, b) => Number(b['last_seen'] ?? 0) - Number(a['last_seen'] ?? 0))
      .map((i) => {
        const id = String(i['incident_id'] ?? '');
        const level = typeof i['max_level'] === 'string' ? i['max_level'] : 'none';
        return [
          h('a', { href: `#/incidents/${encodeURIComponent(id)}` }, id),
          h('span', { class: `badge level-${level}` }, level),
          pairs(i['rule_counts']),
          pairs(i['group_by']) || pairs(i['entities']),
          time(i['first_seen']),
          time(i['last_seen']),
          String(i['result_count'] ?? ''),
        ];
      });
    replaceChildren(body, table('Open incidents', ['Incident', 'Level', 'Rules', 'Entities', 'First seen', 'Last seen', 'Results'], rows, 'none open (incidents need an alert pipeline with a group block).'));
  });
  return () => undefined;
}

/** Open risk entities (`/api/v1/risk`) whose value is one of the incident's grouping or entity values. */
async function showRisk(into: HTMLElement, incident: Incident): Promise<void> {
  const values = new Set<unknown>([...Object.values((incident['group_by'] ?? {}) as object), ...Object.values((incident['entities'] ?? {}) as object).flat()]);
  const r = await getJson<{ entities: Readonly<Record<string, unknown>>[] }>('api/v1/risk');
  if (!r.ok) return replaceChildren(into, h('p', { class: 'empty' }, describeFailure(r)));
  const rows = r.value.entities
    .filter((e) => values.has(e['entity_value']))
    .map((e) => [show(e['entity_type'] ?? ''), show(e['entity_value'] ?? ''), show(e['score'] ?? ''), show(e['tactic_count'] ?? ''), show(e['result_count'] ?? '')]);
  replaceChildren(into, table('Risk entities of this incident', ['Type', 'Value', 'Score', 'Tactics', 'Results'], rows, 'none open for its values (risk scoring needs --risk).'));
}

export function renderIncident(root: HTMLElement, id: string): () => void {
  const enc = encodeURIComponent(id);
  const summary = h('div', {}, 'Loading…');
  const risk = h('div');
  const bundle = h('div');
  replaceChildren(root, h('p', {}, h('a', { href: '#/incidents' }, '← All incidents')), h('h2', {}, `Incident ${id}`), summary, h('h3', {}, 'Risk entities'), risk, h('h3', {}, 'Bundle'), bundle);

  void getJson<Incident>(`api/v1/incidents/${enc}`).then((r) => {
    if (!r.ok) return replaceChildren(summary, h('p', { class: 'notice error' }, describeFailure(r)));
    const i = r.value;
    const rules = Object.keys((i['rule_counts'] ?? {}) as object);
    const host = hostOfIncident(i['group_by']);
    const first = rules[0];
    void showRisk(risk, i);
    replaceChildren(
      summary,
      facts([
        ['Level', h('span', { class: `badge level-${String(i['max_level'] ?? 'none')}` }, String(i['max_level'] ?? 'none'))],
        ['Rules', pairs(i['rule_counts'])],
        ['Grouped by', pairs(i['group_by'])],
        ['Entities', pairs(i['entities'])],
        ['First seen', time(i['first_seen'])],
        ['Last seen', time(i['last_seen'])],
        ['Results', String(i['result_count'] ?? '')],
      ]),
      h(
        'p',
        { class: 'actions' },
        first !== undefined && h('a', { class: 'button', href: silenceRoute(first, host, `silenced from incident ${id}`) }, host === undefined ? 'Silence this rule for 1h' : 'Silence this rule on this host for 1h'),
        h('a', { class: 'button', href: triageRoute({ scope: 'incident', incident_id: id }) }, 'Triage this incident'),
      ),
    );
  });

  void request(`api/v1/incidents/${enc}/bundle?format=markdown`)
    .then(async (res) => {
      const text = await res.text();
      if (res.ok) return replaceChildren(bundle, h('pre', { class: 'bundle', attrs: { tabindex: '0', 'aria-label': 'incident bundle (markdown)' } }, text));
      const err = (JSON.parse(text) as { error?: string; hint?: string }) ?? {};
      replaceChildren(bundle, h('p', { class: 'empty' }, describeFailure({ status: res.status, error: err.error ?? `HTTP ${res.status}`, ...(err.hint !== undefined ? { hint: err.hint } : {}) })));
    })
    .catch((error: unknown) => replaceChildren(bundle, h('p', { class: 'notice error' }, String(error))));
  return () => undefined;
}
