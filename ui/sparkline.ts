// A rate series drawn as an SVG polyline, with its figures in the accessible name.
import { rates, type Sample } from './metrics-text.js';

const W = 240;
const H = 48;
const SVG = 'http://www.w3.org/2000/svg';

export function sparkline(samples: readonly Sample[], key: 'events' | 'matches', label: string): { readonly svg: SVGElement; readonly current: string } {
  const r = rates(samples, key);
  const max = Math.max(1, ...r);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('class', 'spark');
  svg.setAttribute('role', 'img');
  const last = r.at(-1);
  svg.setAttribute('aria-label', `${label}: ${r.length} readings, latest ${last === undefined ? 'none' : last.toFixed(1)}, peak ${max.toFixed(1)}`);
  const line = document.createElementNS(SVG, 'polyline');
  const step = r.length > 1 ? W / (r.length - 1) : W;
  line.setAttribute('points', r.map((v, i) => `${(i * step).toFixed(1)},${(H - 2 - (v / max) * (H - 4)).toFixed(1)}`).join(' '));
  svg.appendChild(line);
  return { svg, current: last === undefined ? '…' : last.toFixed(1) };
}
