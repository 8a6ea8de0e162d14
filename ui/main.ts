// The console's shell: navigation, a hash router (`#/view/arg?query`), and the token dialog shown
// when the daemon answers 401.
import { getToken, setToken, UNAUTHORIZED_EVENT } from './api.js';
import { h, replaceChildren } from './dom.js';
import { renderIncident, renderIncidents } from './incidents.js';
import { renderLive } from './live.js';
import { renderOverview } from './overview.js';
import { renderFields, renderSchemas, renderSources } from './reports.js';
import { renderSilences } from './silences.js';
import { renderTriage } from './triage.js';

type Render = (root: HTMLElement, params: URLSearchParams, arg: string | undefined) => () => void;

const VIEWS: readonly (readonly [name: string, label: string, render: Render])[] = [
  ['overview', 'Overview', (root) => renderOverview(root)],
  ['live', 'Live', (root, params) => renderLive(root, params)],
  ['incidents', 'Incidents', (root, _p, arg) => (arg === undefined ? renderIncidents(root) : renderIncident(root, arg))],
  ['silences', 'Silences', (root, params) => renderSilences(root, params)],
  ['triage', 'Triage', (root, params) => renderTriage(root, params)],
  ['sources', 'Sources', (root) => renderSources(root)],
  ['fields', 'Fields', (root) => renderFields(root)],
  ['schemas', 'Schemas', (root) => renderSchemas(root)],
];

const view = document.getElementById('view') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
const dialog = document.getElementById('token-dialog') as HTMLDialogElement;
const tokenInput = document.getElementById('token-input') as HTMLInputElement;

replaceChildren(nav, ...VIEWS.map(([name, label]) => h('li', {}, h('a', { href: `#/${name}`, attrs: { 'data-view': name } }, label))));

let dispose: () => void = () => undefined;

function route(): void {
  const hash = location.hash.startsWith('#/') ? location.hash.slice(2) : 'overview';
  const [path = '', query = ''] = hash.split('?', 2);
  const [name = 'overview', arg] = path.split('/', 2).map((s) => decodeURIComponent(s));
  const found = VIEWS.find(([n]) => n === name) ?? VIEWS[0];
  if (found === undefined) return;
  dispose();
  for (const a of nav.querySelectorAll('a')) {
    if (a.dataset['view'] === found[0]) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${found[1]} · sigmad console`;
  view.replaceChildren();
  dispose = found[2](view, new URLSearchParams(query), arg === '' ? undefined : arg);
  view.focus({ preventScroll: true });
}

function askToken(): void {
  if (dialog.open) return;
  tokenInput.value = getToken() ?? '';
  dialog.showModal();
}

document.getElementById('token-form')?.addEventListener('submit', (e) => {
  e.preventDefault();
  dialog.close();
  setToken(tokenInput.value.trim());
  route();
});
document.getElementById('token-clear')?.addEventListener('click', () => {
  tokenInput.value = '';
  setToken(null);
  dialog.close();
});
document.getElementById('token-button')?.addEventListener('click', askToken);
window.addEventListener(UNAUTHORIZED_EVENT, askToken);
window.addEventListener('hashchange', route);
route();
