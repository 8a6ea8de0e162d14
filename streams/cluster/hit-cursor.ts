// Where a partition owner's hit feed stands (issue 21). Its consumer delivers without acknowledgements,
// so the server never sends a hit twice: one that reached this process after the fetch had given up
// (on a starved process the fetch's timer runs before the socket is read) is lost to the consumer. A
// gap in the delivery sequence shows it, and so does the server's count of what it delivered after a
// fetch that came back short; the consumer then starts again after the last hit handed out. Pure, so a
// model test can lose deliveries at will.

/** What the cursor reads of a delivered message. */
export interface Delivered {
  /** Stream sequence. */
  readonly seq: number;
  readonly info: { readonly deliverySequence: number; readonly pending: number };
}

/** The server's view of the consumer after a fetch: how many it delivered, how many are left. */
export interface ConsumerView {
  readonly delivered: number;
  readonly pending: number;
}

/** The consumer a cursor reads through. */
export interface ConsumerPort<M extends Delivered> {
  fetch(max: number, expiresMs: number): Promise<M[]>;
  /** The server's view of the consumer now. */
  view(): Promise<ConsumerView>;
  /** Replaces the consumer by one starting after stream sequence `afterSeq`. */
  restart(afterSeq: number): Promise<void>;
}

export class HitCursor {
  /** Delivery sequence of the last hit handed out (consumer-local: 0 after every start). */
  private delivered = 0;

  /** @param streamSeq Stream sequence of the last hit handed out: the consumer starts after it. */
  constructor(private streamSeq: number) {}

  /** Starts `port`'s consumer after the last hit handed out. */
  async restart<M extends Delivered>(port: ConsumerPort<M>): Promise<void> {
    await port.restart(this.streamSeq);
    this.delivered = 0;
  }

  /**
   * One fetch: the hits that follow the last one handed out, how many the server holds after them,
   * and whether it held none (every hit stored before the fetch began is handed out by now). After
   * a loss the consumer starts again and the fetch is not drained.
   */
  async fetch<M extends Delivered>(port: ConsumerPort<M>, max: number, expiresMs: number): Promise<{ readonly msgs: M[]; readonly pending: number; readonly drained: boolean }> {
    const msgs: M[] = [];
    let whole = true;
    for (const m of await port.fetch(max, expiresMs)) {
      if (m.info.deliverySequence !== this.delivered + 1) {
        whole = false;
        break;
      }
      this.delivered = m.info.deliverySequence;
      this.streamSeq = m.seq;
      msgs.push(m);
    }
    const last = msgs[msgs.length - 1];
    if (whole && last !== undefined) return { msgs, pending: last.info.pending, drained: last.info.pending === 0 };
    // An empty fetch: only the server knows whether it sent nothing or sent what this process lost.
    const view = whole ? await port.view() : undefined;
    if (view !== undefined && view.delivered === this.delivered) return { msgs, pending: view.pending, drained: view.pending === 0 };
    await this.restart(port);
    return { msgs, pending: (await port.view()).pending, drained: false };
  }
}
