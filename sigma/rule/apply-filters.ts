// Filters merged into the detection rules they target (sigma-semantics §7.2): the filter's detections
// are copied under hidden names and every rule condition C becomes `(C) and (F)`, F renamed to match.
import type { Detection, DetectionRule, FilterRule } from '../ast.js';
import { documentLoc } from './document-loc.js';
import type { SigmaWarning } from '../errors.js';
import { FilterNaming, andCondition } from './filter-condition.js';
import { logsourceContains } from './logsource.js';

export interface FilterApplication {
  readonly rules: DetectionRule[];
  readonly warnings: SigmaWarning[];
}

export function applyFilters(rules: readonly DetectionRule[], filters: readonly FilterRule[]): FilterApplication {
  const warnings: SigmaWarning[] = [];
  const out = [...rules];
  for (const filter of filters) {
    filter.rules.forEach((ref, i) => {
      if (!rules.some((r) => r.id === ref || r.name === ref)) {
        warnings.push({ code: 'FilterTargetNotFound', message: `filter target '${ref}' matches no detection rule`, loc: documentLoc(filter, ['filter', 'rules', i]) });
      }
    });
    for (let i = 0; i < out.length; i++) {
      const rule = out[i];
      if (rule && targets(filter, rule)) out[i] = mergeFilter(rule, filter);
    }
  }
  return { rules: out, warnings };
}

function targets(filter: FilterRule, rule: DetectionRule): boolean {
  const named = filter.rules.length === 0 || filter.rules.some((ref) => ref === rule.id || ref === rule.name);
  return named && logsourceContains(filter.logsource, rule.logsource);
}

function mergeFilter(rule: DetectionRule, filter: FilterRule): DetectionRule {
  const naming = freshNaming(rule);
  const detections = new Map<string, Detection>(rule.detections);
  for (const [name, detection] of filter.detections) detections.set(naming.rename(name), detection);
  const parts = filter.condition.map((c) => naming.rewrite(c));
  const filterCondition = parts.length === 1 ? (parts[0] ?? '') : parts.map((c) => `(${c})`).join(' or ');
  return { ...rule, detections, condition: rule.condition.map((c) => andCondition(c, filterCondition)) };
}

// Each filter applied to a rule gets the next prefix no existing identifier could be confused with.
function freshNaming(rule: DetectionRule): FilterNaming {
  for (let n = 1; ; n++) {
    const naming = new FilterNaming(`_filt${n}`);
    if (![...rule.detections.keys()].some((name) => naming.claims(name))) return naming;
  }
}

