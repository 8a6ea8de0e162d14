import Compile from 'typebox/compile';
import type { CompiledCorrelation } from '../../sigma/correlation/index.js';
import { groupIdOf } from '../../sigma/correlation/index.js';
import type { ActorKind } from '../kind.js';
import { definitionGroupOf, parseActorKey } from './actor-key.js';
import { CORRELATION_CODEC_VERSION, decodeGroup, encodeGroup } from './codec.js';
import type { CorrelationEvent } from './events.js';
import { CorrelationEventSchema } from './events.js';
import type { GroupEffect } from './reducer.js';
import { transition } from './reducer.js';
import type { GroupState } from './state.js';
import { initial } from './state.js';

const checkEvent = Compile(CorrelationEventSchema);

/**
 * The `corr` actor kind for the journal, bound to the loaded correlations (a group's initial state
 * and its decoded snapshot need their compiled definition). Build a new one on every rule reload.
 */
export function createCorrelationActorKind(
  correlations: readonly CompiledCorrelation[],
): ActorKind<GroupState, CorrelationEvent, GroupEffect> {
  const byHash = new Map(correlations.map((d) => [d.hash, d]));
  return {
    kind: 'corr',
    initial(key) {
      const parsed = parseActorKey(correlations, key);
      if (parsed === undefined) throw new Error(`no loaded correlation for actor key '${key}'`);
      return initial(parsed.def, groupIdOf(parsed.parts));
    },
    transition,
    codec: {
      version: CORRELATION_CODEC_VERSION,
      encode: encodeGroup,
      decode(encoded, version) {
        const g = version === CORRELATION_CODEC_VERSION ? decodeGroup(encoded, (h) => byHash.get(h)) : undefined;
        if (g === undefined) throw new Error('correlation group snapshot cannot be rebuilt');
        return g;
      },
    },
    retired: (s) => s.phase === 'expired' || s.phase === 'evicted',
    // Keys of correlations no longer loaded still name their group, so their state can be dropped.
    definitionGroup(key) {
      const parsed = parseActorKey(correlations, key);
      if (parsed !== undefined) return definitionGroupOf(parsed.def);
      const end = key.startsWith('corr:') ? key.indexOf(':', 5) : -1;
      return end > 0 ? key.slice(0, end) : undefined;
    },
    isEvent: (e): e is CorrelationEvent => checkEvent.Check(e),
  };
}
