/**
 * The bookkeeping of one SQS batch of the interruptions function: which deliveries are still
 * going, which failed (reported as batch item failures), and whose claims must be given back.
 */
import type { Logger } from '../support/logger.ts';
import type { InterruptionEvent } from './event.ts';
import type { ResolvedEvent } from './owner.ts';

/** One EventBridge event as one SQS record delivered it. */
export interface Delivery {
  messageId: string;
  /** The idempotency key: `event#<EventBridge id>`. */
  key: string;
  events: InterruptionEvent[];
  /** Filled once DescribeInstances answered. */
  resolved: ResolvedEvent[];
}

export class Batch {
  /** Claimed by this invocation and not failed: what is counted and alerted on. */
  readonly active: Delivery[] = [];
  /** Failed after their claim: released, so the retry processes them. */
  readonly toRelease: Delivery[] = [];
  readonly #failed = new Set<string>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  claimed(d: Delivery): void {
    this.active.push(d);
  }

  /** Retrying cannot help: the record fails alone and reaches the DLQ after the queue's maxReceiveCount. */
  malformed(messageId: string, code: string, problem: string): void {
    this.#failed.add(messageId);
    this.#logger.warn('malformed record', { messageId, code, problem });
  }

  /** One log line for the lot. `claimed`: the deliveries hold a claim to give back. */
  fail(deliveries: readonly Delivery[], reason: string, claimed = true): void {
    const failing = deliveries.filter((d) => !this.#failed.has(d.messageId));
    if (failing.length === 0) return;
    for (const d of failing) {
      this.#failed.add(d.messageId);
      const at = this.active.indexOf(d);
      if (at >= 0) this.active.splice(at, 1);
      if (claimed) this.toRelease.push(d);
    }
    this.#logger.error('records failed', { messageIds: failing.map((d) => d.messageId), reason });
  }

  /** The failed ones of `messageIds`, in their order. */
  failedOf(messageIds: readonly string[]): string[] {
    return messageIds.filter((id) => this.#failed.has(id));
  }
}
