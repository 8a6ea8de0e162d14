import type { CompiledTemplate } from '../result-template.js';
import type { EnrichCall } from './enricher.js';

/** `type: template`: render the string and inject it (§7.3). */
export function templateCall(template: CompiledTemplate): EnrichCall {
  return (result) => template.render(result);
}
