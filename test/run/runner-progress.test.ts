import { afterEach, describe, expect, it, vi } from "vitest";
import { loadCorpus } from "../../src/corpus/load.js";
import { runRows, selectRows, timerMs, MAX_TIMER_MS, guarded } from "../../src/run/runner.js";
import { inProcessSubject } from "../../src/subjects/in-process.js";
import type { Subject } from "../../src/subjects/subject.js";

// Progress without a terminal (a CI log): a plain line every so often, never a bar; and timers
// that never overflow setTimeout's limit; and an interrupt that stops the run where it is.

/** The reference, each request delayed by `ms`. */
function slowReference(ms: number): Subject {
  const inner = inProcessSubject("reference");
  return {
    label: "slow reference",
    async open(profile) {
      const session = await inner.open(profile);
      return { ...session, hello: session.hello, send: async (body) => (await new Promise((r) => setTimeout(r, ms)), session.send(body)) };
    },
  };
}

afterEach(() => vi.restoreAllMocks());

describe("progress without a terminal", () => {
  it("writes a plain line now and then (here every 200 ms), with rows done, percent and seconds; none with progress false", async () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
    const isTTY = process.stderr.isTTY;
    Object.defineProperty(process.stderr, "isTTY", { value: false, configurable: true });
    try {
      const rows = selectRows(loadCorpus(), { profile: "ag02", tiers: ["core"] }).rows.slice(0, 40);
      await runRows(slowReference(25), rows, { profile: "ag02", level: "messages", tiers: ["core"], jobs: 1, progress: "auto", progressEveryMs: 200 });
      const progress = lines.filter((l) => l.startsWith("  scoring: "));
      expect(progress.length).toBeGreaterThanOrEqual(2);
      for (const line of progress) expect(line).toMatch(/^ {2}scoring: \d+\/40 rows \(\d+%\), \d+ s\n$/);
      expect(lines.join("")).not.toContain("\x1b[");
      lines.length = 0;
      await runRows(slowReference(25), rows.slice(0, 20), { profile: "ag02", level: "messages", tiers: ["core"], jobs: 1, progress: false, progressEveryMs: 100 });
      expect(lines).toEqual([]);
    } finally {
      Object.defineProperty(process.stderr, "isTTY", { value: isTTY, configurable: true });
    }
  });
});

describe("timers", () => {
  it("never ask setTimeout for more than 2^31-1 ms (a longer one fires at once)", async () => {
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    expect(timerMs(3_000_005_000)).toBe(MAX_TIMER_MS);
    // a guard far beyond the limit does not fire at once
    const warn = vi.spyOn(process, "emitWarning");
    const send = guarded(() => new Promise((r) => setTimeout(() => r({ ok: true }), 50)), 3_000_005_000);
    await expect(send({ cmd: "names" } as never)).resolves.toEqual({ ok: true });
    expect(warn).not.toHaveBeenCalled();
  });
});

describe("an interrupt", () => {
  it("stops the run where it is: the rows answered kept, the rest errored, the run marked interrupted with the signal", async () => {
    const rows = selectRows(loadCorpus(), { profile: "ag02", tiers: ["core"] }).rows.slice(0, 60);
    const controller = new AbortController();
    const seen: string[] = [];
    setTimeout(() => controller.abort("SIGINT"), 300);
    const run = await runRows(slowReference(20), rows, { profile: "ag02", level: "messages", tiers: ["core"], jobs: 1, progress: false, interrupt: controller.signal, onResult: (r) => seen.push(r.id) });
    expect(run.stopped).toEqual({ cause: "interrupted (SIGINT)", interrupted: "SIGINT" });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(rows.length);
    expect(run.results).toHaveLength(rows.length);
    const unanswered = run.results.filter((r) => !seen.includes(r.id));
    expect(unanswered.every((r) => r.status === "errored" && r.error === "interrupted (SIGINT) before this row was answered")).toBe(true);
  });
});
