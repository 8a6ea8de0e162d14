// Silences: the list with each one's state, a form to create one (prefilled from a detection or an
// incident through the route's query), and delete.
import { describeFailure, getJson, send } from './api.js';
import { button, field, h, input, notice, replaceChildren, select, show, table } from './dom.js';

interface Matcher {
  readonly selector: string;
  readonly op: string;
  readonly value: string;
}

interface Silence {
  readonly id: string;
  readonly matchers: readonly Matcher[];
  readonly starts_at?: string;
  readonly ends_at?: string;
  readonly created_by?: string;
  readonly comment?: string;
  readonly origin?: string;
  readonly state?: string;
}

const OPS = ['=', '!=', '=~', '!~'] as const;
const DURATIONS: readonly (readonly [string, string])[] = [['15m', '15 minutes'], ['1h', '1 hour'], ['4h', '4 hours'], ['24h', '1 day'], ['168h', '1 week']];
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000 };

export function renderSilences(root: HTMLElement, params: URLSearchParams): () => void {
  const list = h('div', {}, 'Loading…');
  const msg = notice();
  const rows = h('div', { class: 'matchers' });

  const addMatcher = (m: Matcher = { selector: '', op: '=', value: '' }) => {
    const row = h(
      'fieldset',
      { class: 'matcher' },
      h('legend', {}, 'Matcher'),
      field('Selector', input('selector', m.selector, { required: '', placeholder: 'rule, level, match.Computer, event.host.name…' })),
      field('Operator', select('op', OPS.map((o) => [o, o] as const), m.op)),
      field('Value', input('value', m.value, { required: '' })),
    );
    row.append(button('Remove matcher', () => row.remove()));
    rows.append(row);
  };

  const rule = params.get('rule');
  if (rule !== null) addMatcher({ selector: 'rule', op: '=', value: rule });
  const sel = params.get('selector');
  const val = params.get('value');
  if (sel !== null && val !== null) addMatcher({ selector: sel, op: '=', value: val });
  if (rows.childElementCount === 0) addMatcher();

  const duration = select('for', DURATIONS, params.get('for') ?? '1h');
  const createdBy = input('created_by', '', { autocomplete: 'username' });
  const comment = input('comment', params.get('comment') ?? '');

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const matchers = [...rows.querySelectorAll('fieldset')].map((fs) => ({
      selector: (fs.querySelector('[name=selector]') as HTMLInputElement).value.trim(),
      op: (fs.querySelector('[name=op]') as HTMLSelectElement).value,
      value: (fs.querySelector('[name=value]') as HTMLInputElement).value,
    }));
    const span = /^(\d+)([mh])$/.exec(duration.value);
    const ms = span === null ? 3_600_000 : Number(span[1]) * (UNIT_MS[span[2] as string] ?? 0);
    const body = {
      matchers,
      ends_at: new Date(Date.now() + ms).toISOString(),
      ...(createdBy.value.trim() !== '' ? { created_by: createdBy.value.trim() } : {}),
      ...(comment.value.trim() !== '' ? { comment: comment.value.trim() } : {}),
    };
    const r = await send<{ id: string }>('POST', 'api/v1/silences', body);
    if (r.ok) msg.show(`Silence ${r.value.id} created.`);
    else msg.show(`Not created: ${describeFailure(r)}`, 'error');
    await refresh();
  };

  const refresh = async () => {
    const r = await getJson<{ silences: Silence[] }>('api/v1/silences');
    if (!r.ok) return replaceChildren(list, h('p', { class: 'notice error' }, describeFailure(r)));
    const remove = async (id: string) => {
      const d = await send('DELETE', `api/v1/silences/${encodeURIComponent(id)}`);
      msg.show(d.ok ? `Silence ${id} deleted.` : `Not deleted: ${describeFailure(d)}`, d.ok ? 'ok' : 'error');
      await refresh();
    };
    replaceChildren(
      list,
      table(
        'Silences',
        ['State', 'Matchers', 'Starts', 'Ends', 'Origin', 'Created by', 'Comment', 'Actions'],
        r.value.silences.map((s) => [
          h('span', { class: `badge state-${s.state ?? 'active'}` }, s.state ?? 'active'),
          h('ul', { class: 'fields' }, ...s.matchers.map((m) => h('li', {}, `${show(m.selector, 80)} ${m.op} ${show(m.value, 120)}`))),
          s.starts_at ?? '',
          s.ends_at ?? 'never',
          s.origin ?? '',
          show(s.created_by ?? ''),
          show(s.comment ?? ''),
          button('Delete', () => void remove(s.id), 'danger'),
        ]),
        'none.',
      ),
    );
  };

  replaceChildren(
    root,
    h('h2', {}, 'Silences'),
    msg,
    list,
    h(
      'form',
      { class: 'create', attrs: { 'aria-labelledby': 'silence-create' }, on: { submit: (e) => void submit(e) } },
      h('h3', { attrs: { id: 'silence-create' } }, 'New silence'),
      rows,
      h('p', {}, button('Add matcher', () => addMatcher())),
      field('Duration', duration),
      field('Created by', createdBy),
      field('Comment', comment),
      h('button', { attrs: { type: 'submit' }, class: 'primary' }, 'Create silence'),
    ),
  );
  void refresh();
  return () => undefined;
}
