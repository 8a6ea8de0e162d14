/** A response's abort state and the callbacks to run once when the client goes away (every adapter). */
export class AbortCallbacks {
  private fired = false;
  private readonly callbacks: (() => void)[] = [];

  get aborted(): boolean {
    return this.fired;
  }

  add(cb: () => void): void {
    this.callbacks.push(cb);
  }

  /** Marks the response aborted and runs the callbacks; later calls do nothing. */
  fire(): void {
    if (this.fired) return;
    this.fired = true;
    for (const cb of this.callbacks) cb();
  }
}
