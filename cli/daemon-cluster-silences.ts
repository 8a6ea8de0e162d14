// `/api/v1/silences` in cluster mode with an alert pipeline or risk layer (issue 21): API silences are
// the cluster's, kept in its silence bucket (`streams/cluster/cluster-silences.ts`), so one created on
// any node mutes in every partition and a deletion on any node unmutes everywhere. A list answers the
// cluster's view: this node's static silences (the file every node runs) and the bucket's API ones.
import { randomUUID } from 'node:crypto';
import { DEFAULT_MAX_SILENCES, silenceState } from '../actors/index.js';
import type { Silence } from '../actors/index.js';
import type { SilenceStore } from '../http/index.js';
import type { AlertStage, Clock, ClusterSilences } from '../streams/index.js';
import { unixSeconds } from '../streams/index.js';
import { silenceView } from './daemon-alerts.js';

export function clusterSilenceStore(silences: ClusterSilences, stage: AlertStage, clock: Clock): SilenceStore {
  /** The silences in force cluster-wide at `now`: static ones not deleted through the bucket, then the bucket's unexpired API ones. */
  const current = (now: number): Silence[] => [
    ...stage.pipeline.silences.all().filter((s) => s.origin === 'static' && !silences.deleted(s.id)),
    ...silences.live().filter((s) => silenceState(s, now) !== 'expired'),
  ];
  return {
    list: () => {
      const now = unixSeconds(clock.now());
      return current(now).map((s) => silenceView(s, now));
    },
    async create(body) {
      const checked = stage.pipeline.checkSilence(body, randomUUID());
      if (!checked.ok) return checked.reason === 'invalid' ? { ok: false, reason: 'invalid', detail: checked.detail } : { ok: false, reason: 'limit_reached' };
      const max = stage.pipeline.config?.maxSilences ?? DEFAULT_MAX_SILENCES;
      if (current(unixSeconds(clock.now())).filter((s) => s.origin === 'api').length >= max) return { ok: false, reason: 'limit_reached' };
      await silences.put(checked.silence);
      return { ok: true, id: checked.silence.id };
    },
    async remove(id) {
      if (!current(unixSeconds(clock.now())).some((s) => s.id === id)) return false;
      await silences.remove(id);
      return true;
    },
  };
}
