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
  const timer = setTimeout(
    () => {
      bar = new cliProgress.SingleBar(
        { stream: process.stderr, format: "  scoring [{bar}] {value}/{total} rows  {eta_formatted} left", hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, done);
    },
    mode === true ? 0 : PROGRESS_AFTER_MS,
  );
  timer.unref();
  return {
    update(n) {
      done = n;
      bar?.update(n);
    },
    stop() {
      clearTimeout(timer);
      bar?.stop();
    },
  };
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

