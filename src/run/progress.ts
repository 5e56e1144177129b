import cliProgress from "cli-progress";

/** A run this long (ms) gets a progress bar, when stderr is a terminal. */
const PROGRESS_AFTER_MS = 800;

export interface Progress {
  update(done: number): void;
  stop(): void;
}

/** Without a terminal, a progress line this often (ms): a CI log shows a long run moving. */
export const PROGRESS_LINE_MS = 10_000;

/**
 * A progress bar that appears only on a terminal, and only once the run has lasted a while; without
 * one ("auto"), a plain line every `everyMs` (`scoring: 120/801 rows (14%), 10 s`) until the run ends.
 */
export function startProgress(mode: "auto" | boolean, total: number, everyMs: number): Progress {
  if (mode === false || total === 0) return { update() {}, stop() {} };
  const terminal = mode === true || (process.stderr.isTTY === true && !process.env.CI);
  if (!terminal) return progressLines(total, everyMs);
  let bar: cliProgress.SingleBar | undefined;
  let done = 0;
  const started = Date.now();
  const timer = setTimeout(
    () => {
      bar = new cliProgress.SingleBar(
        { stream: process.stderr, format: "  scoring [{bar}] {value}/{total} rows{left}", hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, done, { left: leftText(done, total, Date.now() - started) });
    },
    mode === true ? 0 : PROGRESS_AFTER_MS,
  );
  timer.unref();
  return {
    update(n) {
      done = n;
      bar?.update(n, { left: leftText(n, total, Date.now() - started) });
    },
    stop() {
      clearTimeout(timer);
      bar?.stop();
    },
  };
}

/** Rows done, and time spent, before an estimate of the time left is shown. */
export const ETA_AFTER = { rows: 0.1, ms: 3_000 } as const;

/**
 * "  · 1 min 20 s left", or nothing while too little is known: rows differ in cost (the first ones
 * are fast, a subject's slow rows come later), so the rate is the whole run's, and only once a
 * tenth of the rows and 3 s have passed.
 */
export function leftText(done: number, total: number, elapsedMs: number): string {
  if (done >= total || done < total * ETA_AFTER.rows || elapsedMs < ETA_AFTER.ms) return "";
  const seconds = Math.ceil(((total - done) * elapsedMs) / done / 1000);
  return `  · ${seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`} left`;
}

/** Progress as plain lines, one every `everyMs`, for a log that is not a terminal. */
function progressLines(total: number, everyMs: number): Progress {
  const started = Date.now();
  let done = 0;
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stderr.write(`  scoring: ${done}/${total} rows (${Math.floor((done / total) * 100)}%), ${seconds} s\n`);
  }, everyMs);
  timer.unref();
  return {
    update(n) {
      done = n;
    },
    stop() {
      clearInterval(timer);
    },
  };
}

