/** The responses an adapter has not finished yet, so shutdown can wait for them, then cut them. */
export class OpenResponses<T> {
  private readonly open = new Set<T>();
  private idle: (() => void) | undefined;

  add(r: T): void {
    this.open.add(r);
  }
  delete(r: T): void {
    this.open.delete(r);
    if (this.open.size === 0) this.idle?.();
  }
  get size(): number {
    return this.open.size;
  }
  /** Resolve when none are open, or after `graceMs`; then `cut` each one still open. */
  async drain(graceMs: number, cut: (r: T) => void): Promise<void> {
    if (this.open.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.idle = undefined;
    }
    for (const r of [...this.open]) cut(r);
    this.open.clear();
  }
}
