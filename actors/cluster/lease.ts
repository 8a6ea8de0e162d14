// The partition lease protocol of cluster mode (issue 21), as pure decisions over what a node read from
// the lease bucket (a JetStream KV: every write is checked against the revision it read) and its own
// clock. The effect layer (`streams/cluster/`) reads the bucket, asks `decideLeases`, performs the
// writes and folds their outcomes back with `leaseWritten`. Time is an input; nothing here does I/O.

/** A lease as the bucket holds it: `until` is the holder's clock, `rev` the KV revision of the entry. */
export interface LeaseRecord {
  readonly owner: string;
  readonly until: number;
  readonly rev: number;
}

/** A lease this node wrote successfully and still counts on. */
export interface HeldLease {
  readonly rev: number;
  readonly until: number;
}

export interface LeaseTiming {
  /** How long a written lease lasts. */
  readonly ttlMs: number;
  /**
   * Bound on the clock difference between nodes, and more: a holder stops counting on its lease
   * `marginMs` before `until`, a contender takes it only `marginMs` after, so two nodes never both
   * count on one partition while their clocks differ by less than `marginMs`.
   */
  readonly marginMs: number;
}

/** What a node sees when it decides. */
export interface LeaseView {
  readonly self: string;
  /** This node's clock. */
  readonly now: number;
  readonly partitions: number;
  /** Live members (heartbeats not lapsed), this node included. */
  readonly members: readonly string[];
  /** The bucket's leases by partition; a partition never leased or released may be missing. */
  readonly leases: ReadonlyMap<number, LeaseRecord>;
  readonly held: ReadonlyMap<number, HeldLease>;
  /** Partitions this node is leaving (shutdown): released, never acquired again. */
  readonly leaving: boolean;
}

/** Why a write is made (the reason travels with the decision, as the alert pipeline's do). */
export type LeaseAction =
  /** `rev` undefined: the partition was never leased (a create, which fails if someone created it first). */
  | { readonly kind: 'acquire'; readonly partition: number; readonly rev: number | undefined; readonly until: number; readonly reason: 'free' | 'lapsed' | 'released' | 'own' }
  | { readonly kind: 'renew'; readonly partition: number; readonly rev: number; readonly until: number }
  /** Graceful hand-back (over fair share, or shutdown): the owner snapshots first, then writes `until` 0. */
  | { readonly kind: 'release'; readonly partition: number; readonly rev: number; readonly reason: 'over_share' | 'leaving' };

/** Whether a held lease may still be counted on at `now` (stops `marginMs` early). */
export function counts(held: HeldLease | undefined, now: number, timing: LeaseTiming): boolean {
  return held !== undefined && now < held.until - timing.marginMs;
}

/** Partitions each member should hold at most: P over the live members, rounded up. */
export function fairShare(partitions: number, members: number): number {
  return Math.ceil(partitions / Math.max(1, members));
}

/** A stable per-node starting point, so nodes that start together reach for different partitions first. */
function offsetOf(self: string, partitions: number): number {
  let h = 2166136261;
  for (let i = 0; i < self.length; i++) h = Math.imul(h ^ self.charCodeAt(i), 16777619);
  return (h >>> 0) % partitions;
}

/** Whether `lease` leaves the partition to a contender at `now`, and why. */
function takeable(lease: LeaseRecord | undefined, self: string, now: number, timing: LeaseTiming): 'free' | 'lapsed' | 'released' | 'own' | undefined {
  if (lease === undefined) return 'free';
  if (lease.until === 0) return 'released';
  // Our own lease we no longer count on (a lost answer, a restart): nobody else wrote since, so it is ours to renew.
  if (lease.owner === self) return 'own';
  return now > lease.until + timing.marginMs ? 'lapsed' : undefined;
}

/**
 * One round of a node: renew what it holds once half the ttl is gone, release what is over its fair
 * share (or everything when leaving), and acquire takeable partitions up to its fair share. A held
 * lease the bucket shows changed (someone took it after it lapsed) is neither renewed nor counted.
 */
export function decideLeases(view: LeaseView, timing: LeaseTiming): LeaseAction[] {
  const { self, now, partitions, leases, held } = view;
  const actions: LeaseAction[] = [];
  const valid: number[] = [];
  for (const [p, h] of held) {
    const lease = leases.get(p);
    if (!counts(h, now, timing) || lease === undefined || lease.rev !== h.rev || lease.owner !== self) continue;
    valid.push(p);
  }
  valid.sort((a, b) => a - b);
  const share = view.leaving ? 0 : fairShare(partitions, view.members.length);
  const keep = valid.slice(0, share);
  for (const p of valid.slice(share)) {
    actions.push({ kind: 'release', partition: p, rev: (held.get(p) as HeldLease).rev, reason: view.leaving ? 'leaving' : 'over_share' });
  }
  for (const p of keep) {
    const h = held.get(p) as HeldLease;
    if (h.until - now <= timing.ttlMs / 2) actions.push({ kind: 'renew', partition: p, rev: h.rev, until: now + timing.ttlMs });
  }
  let room = share - keep.length;
  const start = offsetOf(self, partitions);
  for (let i = 0; i < partitions && room > 0; i++) {
    const p = (start + i) % partitions;
    if (keep.includes(p)) continue;
    const lease = leases.get(p);
    const reason = takeable(lease, self, now, timing);
    if (reason === undefined) continue;
    actions.push({ kind: 'acquire', partition: p, rev: lease?.rev, until: now + timing.ttlMs, reason });
    room--;
  }
  return actions;
}

/**
 * The held leases after a write's outcome: `rev` is the revision the bucket gave the write, undefined
 * when it failed or its answer was lost (then the lease is not counted on; a lease the write did set
 * comes back as `own` next round).
 */
export function leaseWritten(held: ReadonlyMap<number, HeldLease>, action: LeaseAction, rev: number | undefined): Map<number, HeldLease> {
  const next = new Map(held);
  if (action.kind === 'release' || rev === undefined) next.delete(action.partition);
  else next.set(action.partition, { rev, until: action.until });
  return next;
}
