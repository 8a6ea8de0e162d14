// Triage: mark a detection or an incident (`POST /api/v1/dispositions`) and the per-rule scorecard
// (`GET /api/v1/dispositions`).
import { describeFailure, getJson, send } from './api.js';
import { field, h, input, notice, replaceChildren, select, show, table } from './dom.js';

type Count = 'true_positives' | 'false_positives' | 'benign_true_positives' | 'total';

/** The `GET /api/v1/dispositions` document (daemon-semantics §10.4). */
interface Ratios {
  readonly window_seconds: number;
  readonly numerator: string;
  readonly min_sample: number;
  readonly rules: readonly (Readonly<Record<Count, number>> & { readonly rule_id: string; readonly fp_ratio: number | null })[];
}

const VERDICTS: readonly (readonly [string, string])[] = [
  ['true_positive', 'True positive'],
  ['false_positive', 'False positive'],
  ['benign_true_positive', 'Benign true positive'],
];

export function renderTriage(root: HTMLElement, params: URLSearchParams): () => void {
  const msg = notice();
  const card = h('div', {}, 'Loading…');
  const scope = select('scope', [['detection', 'Detection (a rule)'], ['incident', 'Incident']], params.get('scope') ?? 'detection');
  const rule = input('rule_id', params.get('rule_id') ?? '', { placeholder: 'rule id' });
  const incident = input('incident_id', params.get('incident_id') ?? '', { placeholder: 'incident id' });
  const verdict = select('verdict', VERDICTS, params.get('verdict') ?? 'true_positive');
  const analyst = input('analyst', '', { autocomplete: 'username' });
  const note = h('textarea', { attrs: { name: 'note', maxlength: '2048', rows: '2' } });

  const refresh = async () => {
    const r = await getJson<Ratios>('api/v1/dispositions');
    if (!r.ok) return replaceChildren(card, h('p', { class: 'notice error' }, describeFailure(r)));
    const v = r.value;
    replaceChildren(
      card,
      h('p', {}, `Window ${Math.round(v.window_seconds / 86_400)} days, ratio counts ${v.numerator === 'fp_only' ? 'false positives' : 'false and benign true positives'}, needs ${v.min_sample} records per rule.`),
      table(
        'Scorecard',
        ['Rule', 'True positives', 'False positives', 'Benign', 'Total', 'FP ratio'],
        v.rules.map((x) => [show(x.rule_id), x.true_positives, x.false_positives, x.benign_true_positives, x.total, x.fp_ratio === null ? 'insufficient sample' : x.fp_ratio.toFixed(2)]),
        'no dispositions yet.',
      ),
    );
  };

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const record = {
      scope: scope.value,
      verdict: verdict.value,
      ...(rule.value.trim() !== '' ? { rule_id: rule.value.trim() } : {}),
      ...(incident.value.trim() !== '' ? { incident_id: incident.value.trim() } : {}),
      ...(analyst.value.trim() !== '' ? { analyst: analyst.value.trim() } : {}),
      ...(note.value.trim() !== '' ? { note: note.value.trim() } : {}),
    };
    const r = await send<{ accepted: number; duplicate: number; rejected: number; errors?: { error: string }[] }>('POST', 'api/v1/dispositions', record);
    if (!r.ok) msg.show(`Not recorded: ${describeFailure(r)}`, 'error');
    else if (r.value.accepted > 0) msg.show(`Recorded (${r.value.accepted} accepted).`);
    else if (r.value.duplicate > 0) msg.show('Already recorded (duplicate).');
    else msg.show(`Rejected: ${(r.value.errors ?? []).map((x) => x.error).join('; ')}`, 'error');
    await refresh();
  };

  replaceChildren(
    root,
    h('h2', {}, 'Triage'),
    h(
      'form',
      { class: 'create', on: { submit: (e) => void submit(e) } },
      h('h3', {}, 'Record a verdict'),
      field('Scope', scope),
      field('Rule id', rule),
      field('Incident id', incident),
      field('Verdict', verdict),
      field('Analyst', analyst),
      field('Note', note),
      h('button', { attrs: { type: 'submit' }, class: 'primary' }, 'Record verdict'),
    ),
    msg,
    h('h3', {}, 'Per-rule scorecard'),
    card,
  );
  void refresh();
  return () => undefined;
}
