import { untilAborted } from "../../subjects/mcp/client.js";
import { formatMs, timerMs } from "../runner.js";

// What ends an MCP run early: the user's signal (SIGINT, SIGTERM) or the run's time budget. Either
// one aborts `signal` with its cause; a call in flight is then given up at once (race), not waited
// for, so that the run ends within moments of either.

export class RunStop {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onSignal: () => void;
  /** The signal's name, when a signal stopped the run. */
  interrupted: string | undefined;

  constructor(
    private readonly user: AbortSignal | undefined,
    budgetMs: number | undefined,
  ) {
    this.onSignal = () => {
      this.interrupted ??= String(this.user!.reason);
      this.halt(`interrupted (${this.interrupted})`);
    };
    if (user?.aborted) this.onSignal();
    else user?.addEventListener("abort", this.onSignal, { once: true });
    this.timer = budgetMs === undefined ? undefined : setTimeout(() => this.halt(`the run's time budget (${formatMs(budgetMs)}) ran out`), timerMs(budgetMs));
  }

  /** Aborted with the cause when the run must stop. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the run stops, once it must. */
  get cause(): string | undefined {
    return this.controller.signal.aborted ? String(this.controller.signal.reason) : undefined;
  }

  /** The promise's value, or undefined as soon as the run must stop. */
  race<T>(promise: Promise<T>): Promise<T | undefined> {
    return untilAborted(promise, this.controller.signal);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.user?.removeEventListener("abort", this.onSignal);
  }

  private halt(cause: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(cause);
  }
}

/** Lets timers and signal handlers run between pieces of synchronous work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
