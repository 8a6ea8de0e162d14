import { QueueClosedError } from './input-unit.js';
import type { InputUnit, UnitOutcome } from './input-unit.js';

/**
 * One unit admitted to the input queue in consecutive chunks as space frees. Each chunk is a unit
 * of its own (batched and committed like any other); the whole unit settles once, after every chunk
 * did, with the summed answer or the first error, so an answer still means all of it committed.
 */
export class UnitChunks {
  private offset = 0;
  /** Chunks handed out and not settled yet. */
  private open = 0;
  /** No more chunks will be handed out. */
  private sealed = false;
  private refused = false;
  private accepted = 0;
  private parseErrors = 0;
  private failure: Error | undefined;

  constructor(readonly unit: InputUnit) {}

  get remaining(): number {
    return this.unit.lines.length - this.offset;
  }

  /** Lines handed out so far. */
  get admitted(): number {
    return this.offset;
  }

  /** The next `count` lines (at most what remains) as a unit; the whole unit itself when it all fits at once. */
  next(count: number): InputUnit {
    const total = this.unit.lines.length;
    if (this.offset === 0 && count >= total) {
      this.offset = total;
      this.sealed = true;
      return this.unit;
    }
    const first = this.offset === 0;
    const start = this.offset;
    const lines = this.unit.lines.slice(this.offset, this.offset + count);
    this.offset += lines.length;
    this.sealed = this.offset === total;
    this.open++;
    const position = this.unit.position;
    return {
      lines,
      rejected: first ? this.unit.rejected : [],
      settle: (outcome) => this.settled(outcome),
      // Each chunk commits where the source stands after its own lines.
      ...(position !== undefined ? { position: { source: position.source, commit: (n: number) => position.commit(start + n), value: () => position.value() } } : {}),
    };
  }

  /** The rest will never be admitted: the unit settles as closed once the chunks handed out did. */
  refuse(): void {
    this.sealed = true;
    this.refused = true;
    if (this.open === 0) this.finish();
  }

  private settled(outcome: UnitOutcome): void {
    this.open--;
    if (!outcome.ok) this.failure ??= outcome.error;
    else {
      this.accepted += outcome.accepted;
      this.parseErrors += outcome.parseErrors;
    }
    if (this.sealed && this.open === 0) this.finish();
  }

  private finish(): void {
    const settle = this.unit.settle;
    if (settle === undefined) return;
    if (this.failure !== undefined) settle({ ok: false, error: this.failure });
    else if (this.refused) settle({ ok: false, error: new QueueClosedError('input queue closed', this.accepted) });
    else settle({ ok: true, accepted: this.accepted, parseErrors: this.parseErrors });
  }
}
