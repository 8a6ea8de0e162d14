/**
 * The partition of a correlation group: FNV-1a 32 of the correlation's name and the group key, mod P.
 * Stage 1 routes a hit by it and stage 2 keeps only its own partitions' groups, so both must agree.
 */
export function partitionOf(correlation: string, groupKey: string, partitions: number): number {
  let h = 2166136261;
  for (let i = 0; i < correlation.length; i++) h = Math.imul(h ^ correlation.charCodeAt(i), 16777619);
  h = Math.imul(h ^ 0, 16777619);
  for (let i = 0; i < groupKey.length; i++) h = Math.imul(h ^ groupKey.charCodeAt(i), 16777619);
  return (h >>> 0) % partitions;
}
