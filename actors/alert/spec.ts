import { assign, setup } from 'xstate';

/**
 * The incident and silence lifecycles of issue 13 as statecharts, which the hot-path reducers
 * (`IncidentStore.tick`, `silenceState`) are property-tested against. Timers are guards over the
 * tick's `now` (UNIX seconds): the charts read no clock.
 */

export interface IncidentTimers {
  readonly groupWait: number;
  readonly groupInterval: number;
  readonly repeatInterval: number;
  readonly resolveTimeout: number;
}

export interface IncidentSpecContext extends IncidentTimers {
  readonly firstSeen: number;
  readonly lastSeen: number;
  readonly lastEmitted: number;
  readonly dirty: boolean;
  /** The trigger of the last transition that emitted, or undefined. */
  readonly emitted: 'group_wait' | 'group_interval' | 'repeat' | 'resolved' | undefined;
}

export type IncidentSpecEvent = { readonly type: 'absorb'; readonly now: number } | { readonly type: 'tick'; readonly now: number } | { readonly type: 'retime'; readonly timers: IncidentTimers };

const nowOf = (e: IncidentSpecEvent): number => (e.type === 'retime' ? -1 : e.now);

export const incidentLifecycle = setup({
  types: {
    context: {} as IncidentSpecContext,
    events: {} as IncidentSpecEvent,
    input: {} as IncidentTimers & { readonly now: number },
  },
  guards: {
    waited: ({ context, event }) => nowOf(event) - context.firstSeen >= context.groupWait,
    quiet: ({ context, event }) => nowOf(event) - context.lastSeen >= context.resolveTimeout,
    intervalDue: ({ context, event }) => context.dirty && nowOf(event) - context.lastEmitted >= context.groupInterval,
    repeatDue: ({ context, event }) => context.repeatInterval > 0 && nowOf(event) - context.lastEmitted >= context.repeatInterval,
  },
  actions: {
    absorb: assign({ lastSeen: ({ event }) => nowOf(event), dirty: true, emitted: undefined }),
    idle: assign({ emitted: undefined }),
    retime: assign(({ event }) => (event.type === 'retime' ? { ...event.timers, emitted: undefined } : {})),
    open: assign({ dirty: false, lastEmitted: ({ event }) => nowOf(event), emitted: 'group_wait' as const }),
    interval: assign({ dirty: false, lastEmitted: ({ event }) => nowOf(event), emitted: 'group_interval' as const }),
    repeat: assign({ lastEmitted: ({ event }) => nowOf(event), emitted: 'repeat' as const }),
    resolve: assign({ emitted: 'resolved' as const }),
  },
}).createMachine({
  id: 'incident',
  initial: 'batching',
  context: ({ input }) => ({ ...input, firstSeen: input.now, lastSeen: input.now, lastEmitted: input.now, dirty: true, emitted: undefined }),
  states: {
    batching: {
      on: {
        absorb: { actions: 'absorb' },
        retime: { actions: 'retime' },
        // Cannot resolve while batching (§9.6).
        tick: [{ guard: 'waited', target: 'open', actions: 'open' }, { actions: 'idle' }],
      },
    },
    open: {
      on: {
        absorb: { actions: 'absorb' },
        retime: { actions: 'retime' },
        tick: [
          { guard: 'quiet', target: 'resolved', actions: 'resolve' },
          { guard: 'intervalDue', actions: 'interval' },
          { guard: 'repeatDue', actions: 'repeat' },
          { actions: 'idle' },
        ],
      },
    },
    resolved: { type: 'final' },
  },
});

export interface SilenceSpecContext {
  readonly startsAt: number | undefined;
  readonly endsAt: number | undefined;
}

export type SilenceSpecEvent = { readonly type: 'tick'; readonly now: number };

/** pending → active → expired, each step taken by a tick at or past the bound (§9.7). */
export const silenceLifecycle = setup({
  types: {
    context: {} as SilenceSpecContext,
    events: {} as SilenceSpecEvent,
    input: {} as SilenceSpecContext,
  },
  guards: {
    started: ({ context, event }) => context.startsAt === undefined || event.now >= context.startsAt,
    ended: ({ context, event }) => context.endsAt !== undefined && event.now >= context.endsAt,
  },
}).createMachine({
  id: 'silence',
  initial: 'pending',
  context: ({ input }) => input,
  states: {
    pending: { on: { tick: [{ guard: 'ended', target: 'expired' }, { guard: 'started', target: 'active' }] } },
    active: { on: { tick: { guard: 'ended', target: 'expired' } } },
    expired: { type: 'final' },
  },
});
