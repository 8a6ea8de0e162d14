// API silences without an alert pipeline: stored and listed so the contract's routes behave, with
// nothing to mute until a pipeline exists (daemon-semantics §9.7; cap 1000 without a pipeline).
import type { SilenceCreateResult, SilenceStore } from '../http/index.js';
import type { Silence } from '../protocol/index.js';

const DEFAULT_MAX_SILENCES = 1000;

export function createSilenceStore(maxSilences = DEFAULT_MAX_SILENCES): SilenceStore {
  const silences = new Map<string, Silence>();
  let next = 1;
  return {
    list: () => [...silences.values()],
    create(body): SilenceCreateResult {
      for (const m of body.matchers) {
        if (m.op !== '=~' && m.op !== '!~') continue;
        try {
          new RegExp(m.value);
        } catch (error) {
          return { ok: false, reason: 'invalid_regex', detail: error instanceof Error ? error.message : String(error) };
        }
      }
      if (silences.size >= maxSilences) return { ok: false, reason: 'limit_reached' };
      const id = `silence-${next++}`;
      silences.set(id, { id, ...body, origin: 'api', state: 'active' });
      return { ok: true, id };
    },
    remove: (id) => silences.delete(id),
  };
}
