import { describe, expect, it } from "vitest";
import { loadCorpus } from "../../src/corpus/load.js";
import type { Body, StartReply } from "../../src/subjects/protocol.js";
import type { Row } from "../../src/corpus/rows.js";
import { makesMessageCheck, TIERS } from "../../src/corpus/rows.js";
import { ProtocolError } from "../../src/subjects/subject.js";
import { causeOf, globToRegExp, MAX_RETRIES, runRows, selectRows } from "../../src/run/runner.js";
import { HANGS_BEFORE_QUICK } from "../../src/run/hangs.js";
import { score } from "../../src/judge/scoring.js";
import { inProcessSubject } from "../../src/subjects/in-process.js";
import { SubjectError, type Session, type Subject } from "../../src/subjects/subject.js";

// Selecting rows and running them: globs and filters, the profile's rows, results in corpus order,
// errors kept as errored rows, capabilities, and a row's tiers decided by the row.

const all = { level: "messages", tiers: [...TIERS] } as const;
const options = { ...all, tiers: [...all.tiers] };

describe("a row's tiers are the row's", () => {
  it("a right answer checks exact text exactly where makesMessageCheck says (every corpus row, against the reference)", async () => {
    const rows = selectRows(loadCorpus(), { profile: "ag02" }).rows;
    const run = await runRows(inProcessSubject("reference"), rows, { profile: "ag02", ...options, progress: false });
    const wrong = run.results.filter((r, i) => r.checks.some((c) => c.level === "messages") !== makesMessageCheck(rows[i]!)).map((r) => r.id);
    expect(wrong).toEqual([]);
  });
});

describe("row selection", () => {
  const rows = loadCorpus();

  it("globs: * is any text, slashes included; ? one character; the rest literal", () => {
    expect(globToRegExp("validate/*").test("validate/type/integer-3.0")).toBe(true);
    expect(globToRegExp("*integer-3.0").test("validate/type/integer-3.0")).toBe(true);
    expect(globToRegExp("validate/type/integer-3?0").test("validate/type/integer-3.0")).toBe(true);
    expect(globToRegExp("validate/type/integer-3.0").test("validate/type/integer-3x0")).toBe(false);
    expect(globToRegExp("validate").test("validate/type/integer-3.0")).toBe(false);
  });

  it("takes a section by its name, and says which filters took nothing", () => {
    const { rows: taken, unmatched } = selectRows(rows, { profile: "ag02", filters: ["TestDefinitionsSorted", "nothing/*"] });
    expect(taken.length).toBeGreaterThan(0);
    expect(taken.every((r) => r.section === "TestDefinitionsSorted")).toBe(true);
    expect(unmatched).toEqual(["nothing/*"]);
  });

  it("keeps the corpus order and the profile's rows only", () => {
    const { rows: taken } = selectRows(rows, { profile: "ag02", tiers: ["core"] });
    const expected = rows.filter((r) => r.tier === "core" && (!r.profiles || r.profiles.includes("ag02")));
    expect(taken.map((r) => r.id)).toEqual(expected.map((r) => r.id));
  });

  it("counts as the lesson profile's core only the rows written for it: seed 000's shared rows are catalog there", () => {
    const own = (r: Row) => r.profiles?.includes("lesson") === true;
    const { rows: core } = selectRows(rows, { profile: "lesson", tiers: ["core"], level: "verdict" });
    expect(core.length).toBeGreaterThan(0);
    expect(core.every(own)).toBe(true);
    const shared = rows.find((r) => !r.profiles && r.tier === "core")!;
    const { rows: catalog } = selectRows([shared], { profile: "lesson", tiers: ["catalog"], level: "verdict" });
    expect(catalog.map((r) => [r.id, r.tier])).toEqual([[shared.id, "catalog"]]);
    // and the same row stays core in ag02
    expect(selectRows([shared], { profile: "ag02", tiers: ["core"] }).rows.map((r) => r.tier)).toEqual(["core"]);
  });
});

// A subject whose rows misbehave on demand: a delay per row, a throw, a hang, a fatal error.
function fakeSubject(plan: { delay?: (body: Body) => number; fail?: (body: Body) => unknown; capabilities?: string[] }, opened: Session[] = []): Subject & { recovered: number; closed: number } {
  const reference = inProcessSubject("fake");
  const subject = {
    label: "fake",
    recovered: 0,
    closed: 0,
    async open(profile: string): Promise<Session> {
      const inner = await reference.open(profile);
      const hello: StartReply = { ...inner.hello, capabilities: plan.capabilities ?? inner.hello.capabilities };
      const session: Session = {
        hello,
        async send(body) {
          const ms = plan.delay?.(body) ?? 0;
          if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
          const failure = plan.fail?.(body);
          if (failure === "hang") return new Promise(() => {});
          if (failure !== undefined) throw failure;
          return inner.send(body);
        },
        async recover() {
          subject.recovered++;
        },
        async close() {
          subject.closed++;
        },
        stderrTail: () => "adapter: something went wrong\n",
      };
      opened.push(session);
      return session;
    },
  };
  return subject;
}

describe("runner", () => {
  const rows = loadCorpus().filter((r) => r.section === "TestValidateTable" && !r.profiles).slice(0, 24);
  const schemaOf = (body: Body) => ("schema" in body ? body.schema : "");

  it("returns results in corpus order whatever order the parallel sessions finish in", async () => {
    // later rows answer sooner
    let n = 0;
    const order = new Map<string, number>();
    const subject = fakeSubject({
      delay: (body) => {
        const key = JSON.stringify(body);
        if (!order.has(key)) order.set(key, n++);
        return Math.max(0, 30 - order.get(key)!);
      },
    });
    const run = await runRows(subject, rows, { profile: "ag02", ...options, jobs: 6, progress: false });
    expect(run.results.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    expect(run.results.every((r) => r.status === "passed")).toBe(true);
  });

  it("errors a row whose reply breaks the protocol, keeps its cause and stderr, recovers, and goes on", async () => {
    const target = rows[3]!;
    const targetSchema = JSON.stringify((target as Extract<Row, { kind: "validate" }>).schema) ?? "";
    const subject = fakeSubject({ fail: (body) => (schemaOf(body) === targetSchema ? new ProtocolError('validate reply: "errors" is not an array') : undefined) });
    const run = await runRows(subject, rows, { profile: "ag02", ...options, jobs: 2, progress: false });
    const errored = run.results.filter((r) => r.status === "errored");
    expect(errored.length).toBeGreaterThan(0);
    expect(errored[0]).toMatchObject({ error: 'validate reply: "errors" is not an array', stderr: "adapter: something went wrong\n" });
    expect(subject.recovered).toBe(errored.length);
    expect(run.results.filter((r) => r.status === "passed").length).toBe(rows.length - errored.length);
  });

  it("a row with no reply within the guard, in a subject that answers the others, fails as a hang (never errored)", async () => {
    const first = (rows[0] as Extract<Row, { kind: "validate" }>).instance;
    const subject = fakeSubject({ fail: (body) => ("instance" in body && body.instance === first ? "hang" : undefined) });
    const run = await runRows(subject, rows.slice(0, 3), { profile: "ag02", ...options, jobs: 1, requestTimeoutMs: 50, progress: false, starved: () => undefined });
    // it timed out before any other row was answered: decided once the others were
    expect(run.results[0]).toMatchObject({ status: "failed", checks: [{ actual: { hung: "no answer in 50 ms" }, pass: false }] });
    expect(run.results[0]!.checks[0]!.note).toMatch(/^your code did not answer in 50 ms on this input \(it hangs or loops\)/);
    expect(run.results[0]!.error).toBeUndefined();
    expect(run.results[0]!.retried).toBeUndefined();
    expect(run.results.slice(1).every((r) => r.status === "passed")).toBe(true);
  });

  it("a subject that answers nothing within the guard: its rows stay errored (the adapter, not the student's code)", async () => {
    const subject = fakeSubject({ fail: (body) => ("instance" in body ? "hang" : undefined) });
    const run = await runRows(subject, rows.slice(0, 2), { profile: "ag02", ...options, jobs: 1, requestTimeoutMs: 20, progress: false, starved: () => undefined });
    expect(run.results.map((r) => r.status)).toEqual(["errored", "errored"]);
  });

  it(`after ${HANGS_BEFORE_QUICK} hangs every session gets a short deadline, so the rest are decided quickly`, async () => {
    // a stdio-like session: its own timeout, which shorten() lowers
    const hanging = new Set(rows.slice(2, 10).map((r) => JSON.stringify((r as Extract<Row, { kind: "validate" }>).instance)));
    const shortened: number[] = [];
    const reference = inProcessSubject("reference");
    const subject: Subject = {
      label: "looping",
      async open(profile) {
        const inner = await reference.open(profile);
        let deadline = 1200;
        let seq = 0;
        return {
          hello: inner.hello,
          async send(body) {
            seq++;
            if ("instance" in body && hanging.has(JSON.stringify(body.instance))) {
              const ms = deadline;
              await new Promise((resolve) => setTimeout(resolve, ms));
              throw new ProtocolError(`no reply to "${body.cmd}" (seq ${seq}) within ${ms} ms; the subject was stopped`);
            }
            return inner.send(body);
          },
          shorten(ms) {
            shortened.push(ms);
            deadline = ms;
          },
          recover: async () => {},
          close: () => inner.close(),
        };
      },
    };
    const started = Date.now();
    const run = await runRows(subject, rows.slice(0, 12), { profile: "ag02", ...options, jobs: 1, requestTimeoutMs: 10_000, progress: false, starved: () => undefined });
    const hung = run.results.filter((r) => r.checks.some((c) => (c.actual as { hung?: string })?.hung !== undefined));
    expect(hung.map((r) => r.id)).toEqual(rows.slice(2, 10).map((r) => r.id));
    expect(hung.every((r) => r.status === "failed")).toBe(true);
    // the first three waited 1200 ms; the short deadline is the floor (the answered rows took ~0 ms), under 1200
    expect(shortened).toHaveLength(1);
    expect(shortened[0]).toBeLessThan(1200);
    expect(hung.slice(0, HANGS_BEFORE_QUICK).map((r) => (r.checks[0]!.actual as { hung: string }).hung)).toEqual(Array(HANGS_BEFORE_QUICK).fill("no answer in 1200 ms"));
    expect(hung.slice(HANGS_BEFORE_QUICK).every((r) => r.checks[0]!.note!.includes(`every other request got ${shortened[0]} ms`))).toBe(true);
    expect(Date.now() - started).toBeLessThan(1200 * hung.length - 2000);
  }, 20_000);

  it("a run retries at most MAX_RETRIES rows that time out while the machine is starved", async () => {
    // each row hangs once, then answers: every retry is the machine's, until the cap
    const seen = new Set<string>();
    const subject = fakeSubject({ fail: (body) => ("instance" in body && !seen.has(JSON.stringify(body.instance)) ? (seen.add(JSON.stringify(body.instance)), "hang") : undefined) });
    const some = rows.slice(0, MAX_RETRIES + 2);
    const run = await runRows(subject, some, { profile: "ag02", ...options, jobs: 1, requestTimeoutMs: 20, progress: false, starved: () => "load 9.0 on 2 cores" });
    expect(run.results.filter((r) => r.retried !== undefined)).toHaveLength(MAX_RETRIES);
    expect(run.results.slice(0, MAX_RETRIES).every((r) => r.status === "passed")).toBe(true);
  });

  it("a row that timed out while the machine was starved runs once more, and counts as that second attempt", async () => {
    const first = (rows[0] as Extract<Row, { kind: "validate" }>).instance;
    let hangs = 1;
    const subject = fakeSubject({ fail: (body) => ("instance" in body && body.instance === first && hangs-- > 0 ? "hang" : undefined) });
    const run = await runRows(subject, rows.slice(0, 3), { profile: "ag02", ...options, jobs: 1, requestTimeoutMs: 50, progress: false, starved: () => "load 9.0 on 2 cores" });
    expect(run.results[0]).toMatchObject({ status: "passed", retried: 'its first attempt timed out while the machine was starved (load 9.0 on 2 cores): no reply to "validate" within 50 ms' });
    expect(subject.recovered).toBe(1);
    expect(run.results.slice(1).map((r) => [r.status, r.retried])).toEqual([["passed", undefined], ["passed", undefined]]);
  });

  it("a row that hangs every time is errored after its retry, and then no timeout is retried (the subject hangs whatever the load); other errors are never retried", async () => {
    const some = rows.slice(0, MAX_RETRIES + 2);
    const subject = fakeSubject({ fail: (body) => ("instance" in body ? "hang" : undefined) });
    const run = await runRows(subject, some, { profile: "ag02", ...options, jobs: 1, requestTimeoutMs: 20, progress: false, starved: () => "load 9.0 on 2 cores" });
    expect(run.results.every((r) => r.status === "errored")).toBe(true);
    expect(run.results.filter((r) => r.retried !== undefined).map((r) => r.id)).toEqual([some[0]!.id]);
    const broken = fakeSubject({ fail: () => new ProtocolError("validate reply: not an object") });
    const again = await runRows(broken, rows.slice(0, 2), { profile: "ag02", ...options, jobs: 1, progress: false, starved: () => "load 9.0 on 2 cores" });
    expect(again.results.map((r) => [r.status, r.retried])).toEqual([["errored", undefined], ["errored", undefined]]);
    expect(broken.recovered).toBe(2);
  });

  it("stops the run on a SubjectError and closes every session", async () => {
    let calls = 0;
    const subject = fakeSubject({ fail: () => (++calls === 5 ? new SubjectError("the subject keeps failing: gave up after 20 restarts") : undefined) });
    await expect(runRows(subject, rows, { profile: "ag02", ...options, jobs: 3, progress: false })).rejects.toThrow(/gave up after 20 restarts/);
    expect(subject.closed).toBe(3);
  });

  it("turns a subject that cannot open into a SubjectError", async () => {
    const subject: Subject = {
      label: "broken",
      open: async () => {
        throw new Error("spawn ENOENT");
      },
    };
    await expect(runRows(subject, rows, { profile: "ag02", ...options, progress: false })).rejects.toThrow(new SubjectError("broken could not start: spawn ENOENT"));
  });

  it("marks rows needing a capability the subject lacks as not answerable", async () => {
    const mixed = loadCorpus().filter((r) => r.section === "TestRegisterRules" && !r.profiles).slice(0, 2);
    const run = await runRows(fakeSubject({ capabilities: ["validate"] }), [...rows.slice(0, 2), ...mixed], { profile: "ag02", ...options, progress: false });
    expect(run.results.map((r) => r.status)).toEqual(["passed", "passed", "skipped", "skipped"]);
    expect(run.results[2]!.error).toBe('the subject does not offer the "registry" capability');
    expect(score(run.results, options).total).toMatchObject({ passed: 2, skipped: 2, percent: 50 });
  });

  it("describes what an in-process implementation threw in one line", () => {
    expect(causeOf(new ProtocolError("the reply is not JSON"))).toBe("the reply is not JSON");
    expect(causeOf(new TypeError("x is undefined\n    at foo (a.js:1:1)"))).toBe("the subject threw TypeError: x is undefined");
    expect(causeOf({ code: 7 })).toBe('the subject threw {"code":7}');
    expect(causeOf("boom")).toBe('the subject threw "boom"');
  });
});
