export type { ActorKind, AnyActorKind, StateCodec, Transition } from './kind.js';
