// SIGINT, SIGTERM and SIGHUP during a run: the first winds the run down (its report is written,
// marked interrupted); a second one a second or more later ends the process at once.

/** The exit code of a run ended by a signal: 128 + its number. */
export const SIGNAL_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/**
 * Until done() is called: the first SIGINT, SIGTERM or SIGHUP aborts `signal` (its reason the
 * signal's name) and the run winds down; a second one a second or more later ends the process at
 * once (the first one's echo, re-raised by a subject's own handler, is ignored).
 */
export function onInterrupt(): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  let first = 0;
  const handlers = Object.keys(SIGNAL_CODES).map((name) => {
    const handler = () => {
      if (!controller.signal.aborted) {
        first = Date.now();
        controller.abort(name);
        return;
      }
      if (Date.now() - first < 1_000) return;
      restoreTerminal();
      process.stderr.write(`tool-conformance: interrupted again (${name}): no report written\n`);
      process.exit(SIGNAL_CODES[name] ?? 130);
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return { signal: controller.signal, done: () => handlers.forEach(([name, handler]) => process.off(name, handler)) };
}

/** Shows the cursor again (the progress bar hides it) on a terminal. */
export function restoreTerminal(): void {
  if (process.stderr.isTTY) process.stderr.write("\x1b[?25h");
}

/** A signal that came while a whole run's reports were written: they are whole, the exit code is the signal's. */
export function interruptedWhileWriting(signal: AbortSignal): number | undefined {
  if (!signal.aborted) return undefined;
  const name = String(signal.reason);
  process.stderr.write(`tool-conformance: interrupted (${name}) while the reports were written: they are whole\n`);
  return SIGNAL_CODES[name] ?? 130;
}
