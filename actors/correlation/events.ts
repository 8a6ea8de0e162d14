import Type from 'typebox';

/** An event kept for a result (`refs`: time and id; `full`: the event itself). Times are epoch ms. */
export const KeptEventSchema = Type.Object(
  {
    ts: Type.Integer({ minimum: 0 }),
    id: Type.Optional(Type.String()),
    event: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type KeptEvent = Type.Static<typeof KeptEventSchema>;

/** The aggregated input of one hit: a rendered distinct value, a number, or null when absent. */
export const HitValueSchema = Type.Union([Type.String(), Type.Number(), Type.Null()]);
export type HitValue = Type.Static<typeof HitValueSchema>;

/**
 * What happened to one correlation group (journaled): an event matched some of its referenced rules
 * (`rules` is the bit mask of those rules), time advanced to `now`, or the state cap evicted the group.
 * A hit older than the stream's time carries that time as `now`: the group is first ticked to it, so an
 * event is late by the newest event before it, not by where a batch happened to end.
 */
export const CorrelationEventSchema = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('hit'),
      at: Type.Integer({ minimum: 0 }),
      now: Type.Optional(Type.Integer({ minimum: 0 })),
      rules: Type.Integer({ minimum: 1 }),
      value: Type.Optional(HitValueSchema),
      kept: Type.Optional(KeptEventSchema),
    },
    { additionalProperties: false },
  ),
  Type.Object({ kind: Type.Literal('tick'), now: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('evicted') }, { additionalProperties: false }),
]);
export type CorrelationEvent = Type.Static<typeof CorrelationEventSchema>;
export type HitEvent = Extract<CorrelationEvent, { kind: 'hit' }>;
