// Building DOM without HTML parsing: every text (and events are attacker-controlled) goes in as a
// text node, never through innerHTML; links can only point inside the console.

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  readonly class?: string;
  /** Plain attributes; `on…` handlers and `style` are refused (the page's CSP forbids inline ones anyway). */
  readonly attrs?: Readonly<Record<string, string>>;
  /** Only `#/…` routes of the console. */
  readonly href?: string;
  readonly on?: { readonly [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: readonly Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class !== undefined) el.className = props.class;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (/^on|^style$|^href$|^src$/i.test(name)) throw new Error(`attribute ${name} is not allowed`);
    el.setAttribute(name, value);
  }
  if (props.href !== undefined) {
    if (!props.href.startsWith('#/')) throw new Error('links stay inside the console');
    el.setAttribute('href', props.href);
  }
  for (const [type, listener] of Object.entries(props.on ?? {})) el.addEventListener(type, listener as EventListener);
  append(el, children);
  return el;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function replaceChildren(parent: Element, ...children: readonly Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A table with a caption (for screen readers) and one row per entry. */
export function table(caption: string, columns: readonly string[], rows: readonly (readonly Child[])[], empty = 'Nothing to show.'): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, `${caption}: ${empty}`);
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { attrs: { scope: 'col' } }, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((cell) => h('td', {}, cell))))),
  );
}

/** Label/value pairs. */
export function facts(entries: readonly (readonly [string, Child])[]): HTMLElement {
  return h('dl', { class: 'facts' }, ...entries.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

export function button(label: string, onClick: () => void, cls?: string): HTMLButtonElement {
  return h('button', { attrs: { type: 'button' }, on: { click: onClick }, ...(cls !== undefined ? { class: cls } : {}) }, label);
}

/** A labelled form control: the label wraps it, so no ids are needed. */
export function field(label: string, control: HTMLElement): HTMLElement {
  return h('label', { class: 'field' }, h('span', {}, label), control);
}

export function input(name: string, value = '', attrs: Readonly<Record<string, string>> = {}): HTMLInputElement {
  const el = h('input', { attrs: { name, ...attrs } });
  el.value = value;
  return el;
}

export function select(name: string, options: readonly (readonly [value: string, label: string])[], value = ''): HTMLSelectElement {
  const el = h('select', { attrs: { name } }, ...options.map(([v, l]) => h('option', { attrs: { value: v } }, l)));
  el.value = value;
  return el;
}

/** A message area for results of an action (announced to screen readers). */
export function notice(): HTMLElement & { show(text: string, kind?: 'ok' | 'error'): void } {
  const el = h('p', { class: 'notice', attrs: { role: 'status', 'aria-live': 'polite' } });
  return Object.assign(el, {
    show(text: string, kind: 'ok' | 'error' = 'ok') {
      el.textContent = text;
      el.className = `notice ${kind}`;
    },
  });
}

export function time(epochSeconds: unknown): string {
  return typeof epochSeconds === 'number' ? new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z') : '';
}

/** Any JSON value as short text. */
export function show(value: unknown, max = 160): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
