import { sleep } from '../stage-context.js';
import type { Clock } from '../stage-context.js';

/**
 * Token bucket (daemon-semantics §12.2): starts full with `requests` tokens and refills
 * continuously at `requests / perMs`. `take` resolves once a token is had and says whether it waited.
 */
export class RateLimiter {
  private tokens: number;
  private at: number;

  constructor(
    private readonly requests: number,
    private readonly perMs: number,
    private readonly clock: Clock,
  ) {
    this.tokens = requests;
    this.at = clock.now();
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.requests, this.tokens + ((now - this.at) * this.requests) / this.perMs);
    this.at = now;
  }

  async take(): Promise<boolean> {
    this.refill();
    let waited = false;
    while (this.tokens < 1) {
      waited = true;
      await sleep(this.clock, Math.ceil(((1 - this.tokens) * this.perMs) / this.requests));
      this.refill();
    }
    this.tokens -= 1;
    return waited;
  }
}
