import { execFile, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { readReport } from "../../src/report/read-report.js";
import { type Report, type ReportRow } from "../../src/report/report.js";

// The diagnosis, tested on code nobody here wrote: test/fixtures/real-shapes holds small
// implementations of the ag.02 contract, each with ONE departure of a shape real code takes
// (Go's map order, errors without paths, errors in discovery order, a validator library,
// unguarded crashes), written from the spec and ordinary habits, never from src/. Each is graded
// as a user grades it, through the CLI with the default options and the adapter templates, and
// the diagnosis is asserted as a careful reviewer would write it: the pitfalls it truly has, and
// no other. The named pitfalls must not change with --tier all or --level verdict: a behaviour
// gets the same diagnosis whatever a run scores.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const SHAPES = join(PACKAGE_ROOT, "test", "fixtures", "real-shapes");
const PYTHON_ADAPTER = join(PACKAGE_ROOT, "conformance", "adapters", "python", "adapter.py");
const GO_TEMPLATE = join(PACKAGE_ROOT, "conformance", "adapters", "go", "main.go");
/** The system Python: the one Debian's python3-jsonschema is installed for (.ci/run installs it); a pyenv python3 on PATH has another. */
const PYTHON = "/usr/bin/python3";

/** As test/subjects/stdio-go.test.ts builds: a shared cache (a fresh machine fills it once), offline, no toolchain switch. */
const GO_HOME = join(tmpdir(), "tool-conformance-go");
const { TOOLREG_BUG: _bug, GORACE: _race, ...inherited } = process.env;
const GO_ENV = { ...inherited, GOTOOLCHAIN: "local", GOPROXY: "off", GOFLAGS: "", GOWORK: "off", GOCACHE: join(GO_HOME, "cache"), GOPATH: join(GO_HOME, "path"), CGO_ENABLED: "1" };

const FIXTURES = ["go-map-order", "python-no-paths", "python-discovery-order", "python-jsonschema", "python-crashes", "python-validates-nothing", "python-duplicates-shadow", "python-discovery-other", "python-first-additional", "python-discovery-required-first"] as const;
type Fixture = (typeof FIXTURES)[number];
/** The default options, then the same behaviour scored with every tier, then at the verdict level. */
const RUNS = { defaults: [], "tier-all": ["--tier", "all", "--min-score", "0"], verdict: ["--level", "verdict", "--min-score", "0"] } as const;
type RunName = keyof typeof RUNS;

const python = (module: string) => `${PYTHON} ${JSON.stringify(PYTHON_ADAPTER)} ${JSON.stringify(join(SHAPES, module))}`;

let scratch: string;
const subjects = {} as Record<Fixture, string>;
/** Each run's report, or why it has none (one broken run fails the tests that read it, not the whole file). */
const reports = {} as Record<Fixture, Record<RunName, Report | Error>>;

function report(fixture: Fixture, run: RunName = "defaults"): Report {
  const got = reports[fixture][run];
  if (got instanceof Error) throw got;
  return got;
}

/** `score --subject COMMAND --reporter json` as a user runs it; the report as readReport reads it. */
async function grade(fixture: Fixture, run: RunName): Promise<Report> {
  const out = join(scratch, `${fixture}-${run}`);
  // --jobs 2: the CI machine's cores. --timeout only bounds a hanging row (Python's re on the
  // catastrophic-backtracking hardening row): it changes no answer.
  const args = [MAIN, "score", "--subject", subjects[fixture], "--reporter", "json", "--out", out, "--no-progress", "--jobs", "2", ...RUNS[run], ...(run === "tier-all" ? ["--timeout", "1500"] : [])];
  try {
    await promisify(execFile)(process.execPath, args, { env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 });
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code !== 1) throw error; // 1: rows did not pass, which these fixtures are for
  }
  return readReport(join(out, "report.jsonl"));
}

/** Every pitfall a diagnosis names: each match, and the mutants it cannot be told apart from. */
const named = (report: Report) => new Set(report.diagnosis.matches.flatMap((match) => [match.id, ...match.alike]));
const notPassed = (report: Report) => report.rows.filter((row) => row.status !== "passed");
const failingChecks = (row: ReportRow) => row.checks.filter((check) => !check.pass);
/** A check whose answer is a crash: `{"threw": "…"}`, what the implementation raised or panicked with. */
const isCrash = (actual: unknown) => typeof actual === "object" && actual !== null && typeof (actual as { threw?: unknown }).threw === "string";

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error("this test runs the built CLI: run npm run build first");
  const jsonschema = spawnSync(PYTHON, ["-c", "import jsonschema"], { encoding: "utf8" });
  if (jsonschema.status !== 0) throw new Error(`${PYTHON} with jsonschema is needed (apt-get install python3-jsonschema; .ci/run installs it): ${jsonschema.error?.message ?? jsonschema.stderr}`);
  scratch = mkdtempSync(join(tmpdir(), "real-shapes-"));

  // go-map-order: the correct Go fixture with this fixture's registry.go laid over it (its only
  // change), plus the Go adapter template, unchanged, built offline.
  const module = join(scratch, "go-map-order");
  cpSync(join(PACKAGE_ROOT, "test", "fixtures", "go-impl"), module, { recursive: true, filter: (path) => !path.endsWith("_test.go") });
  cpSync(join(SHAPES, "go-map-order", "agent"), join(module, "agent"), { recursive: true });
  mkdirSync(join(module, "cmd", "adapter"), { recursive: true });
  copyFileSync(GO_TEMPLATE, join(module, "cmd", "adapter", "main.go"));
  const binary = join(scratch, "go-map-order-adapter");
  const built = spawnSync("go", ["build", "-o", binary, "./cmd/adapter"], { cwd: module, env: GO_ENV, encoding: "utf8", timeout: 180_000 });
  if (built.error || built.status !== 0) throw new Error(`go build: ${built.error?.message ?? built.stderr}`);

  subjects["go-map-order"] = JSON.stringify(binary);
  // toolreg.py returns plain messages; adapt.py (beside it) is what its adapter author adds for the template
  subjects["python-no-paths"] = python("python-no-paths/adapt.py");
  subjects["python-discovery-order"] = python("python-discovery-order/toolreg.py");
  subjects["python-jsonschema"] = python("python-jsonschema/toolreg.py");
  subjects["python-crashes"] = python("python-crashes/toolreg.py");
  for (const shape of ["python-validates-nothing", "python-duplicates-shadow", "python-discovery-other", "python-first-additional", "python-discovery-required-first"] as const) subjects[shape] = python(`${shape}/toolreg.py`);

  // 27 runs, two at a time (each already runs two sessions)
  const queue = FIXTURES.flatMap((fixture) => (Object.keys(RUNS) as RunName[]).map((run) => [fixture, run] as const));
  for (const fixture of FIXTURES) reports[fixture] = {} as Record<RunName, Report | Error>;
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) reports[next[0]][next[1]] = await grade(...next).catch((error: Error) => error);
  };
  await Promise.all([worker(), worker()]);
}, 420_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("go-map-order: Definitions() ranges over the registry's map (Go's random order)", () => {
  it("fails definitions rows only, each on its definitions step, and the ones that cannot come out sorted every time", () => {
    const graded = report("go-map-order");
    expect({ tiers: graded.header.tiers, level: graded.header.level }).toEqual({ tiers: ["core"], level: "messages" });
    const failing = notPassed(graded);
    expect(failing.filter((row) => row.status !== "failed").map((row) => `${row.id}: ${row.status} ${row.error ?? ""}`)).toEqual([]);
    // Which rows fail varies from run to run (map order is random), but only a definitions step
    // ever fails: "step 4: definitions". The call/concurrent rows that list definitions count too.
    expect(failing.flatMap((row) => failingChecks(row).map((check) => `${row.id}: ${check.what}`)).filter((what) => !/: definitions$/.test(what))).toEqual([]);
    // Registered web_search, get_weather, calculator: no rotation of that order is sorted, so a
    // small Go map never lists them sorted.
    expect(failing.map((row) => row.id)).toContain("definitions/sorted/reverse-registration");
  });

  it("is diagnosed as s12 (pitfall 9, definitions not sorted) and nothing else", () => {
    expect([...named(report("go-map-order"))]).toEqual(["s12"]);
  });
});

describe("python-no-paths: errors are plain messages, answered at path $", () => {
  it("is diagnosed as pitfall 10, errors carry no paths, and nothing else (not s17, not s19)", () => {
    const { matches } = report("python-no-paths").diagnosis;
    // every error is reported, sorted by message: what is missing is where each one is
    expect(matches.map((match) => ({ pitfall: match.pitfall, noPaths: match.sentence.includes("errors carry no paths") }))).toEqual([{ pitfall: 10, noPaths: true }]);
    const ids = named(report("python-no-paths"));
    expect(ids.has("s17")).toBe(false);
    expect(ids.has("s19")).toBe(false);
  });
});

describe("python-discovery-order: errors in the order the walk finds them", () => {
  it("is diagnosed as s19 (errors not sorted by path then message) and nothing else", () => {
    expect([...named(report("python-discovery-order"))]).toEqual(["s19"]);
  });
});

describe("python-jsonschema: Debian's jsonschema 4.10, Draft202012Validator, behind a registry that keeps the spec's promises", () => {
  it("is diagnosed as s08 (pitfall 6: keywords outside the subset accepted), the one pitfall it was found by hand to have", () => {
    // Checked by hand through its adapter (validate and compile requests, ag02 profile):
    //
    // HAS pitfall 6 (s08), keywords outside the subset are accepted:
    //   compile {"type":"string","format":"email"}           → {"ok":true}
    //   compile {"oneOf":[{"type":"string"}]}                → {"ok":true}
    //   validate {"type":"string","format":"email"} on "not an email" → errors [] (format is an annotation in 2020-12)
    //
    // Does NOT have, each checked:
    //   pitfall 1, s01: {"type":"integer"} on 3.0            → errors [] (the library's integer accepts 3.0)
    //   pitfall 1, s02: {"type":"number"} on 3               → errors []
    //   pitfall 1, s09: {"enum":[1]} on 1.0                  → errors [] (compared by value)
    //   pitfall 2, s03/s18: {"type":"string","maxLength":5} on "héllo" → errors []; {"maxLength":1} on "💩" → errors [] (len() counts code points)
    //   pitfall 3, s04: {"type":"string","pattern":"[0-9]{3}"} on "ab123cd" → errors [] (re.search)
    //   pitfall 4, s05: {"type":"integer","minimum":1} on 1  → errors []
    //   pitfall 5, s06/s07 and spec §2.2, s19: the worked example's schema on
    //     {"days": "3", "unit": "kelvin", "country": "FR"}   → $ missing required property "city", $ unexpected property "country",
    //     $.days expected integer, got string, $.unit "kelvin" is not one of ["c","f"]: all four, in the spec's order
    //   pitfall 10, s17: {"properties":{"tags":{"type":"array","items":{"type":"string"}}}} on {"tags":["a",2]} → $.tags[1] expected string, got number
    //   pitfalls 7, 8, 9 (s10, s11, s12, s13, s14, s15, s16): the registry around the library is the
    //     fixture's own and keeps them (no registry or call row fails but for schemas the library accepts)
    //
    // Its other failures are no catalogued pitfall: a boolean or empty-enum schema and a pattern
    // that does not compile are accepted (4.10's check_schema does not check the regex format);
    // {"type":"string","enum":["a"]} on 5 → two errors at $ (the library does not stop at a type
    // mismatch); {"enum":[[true]]} on [1] → errors [] (nested true equals 1 in the library's
    // equality); json.loads accepts NaN and -Infinity; Python's $ matches before a final newline;
    // with --tier all, validating against "\\p{L}" raises re.error (a crash, which names no pitfall).
    expect([...named(report("python-jsonschema"))]).toEqual(["s08"]);
  });
});

describe("python-crashes: a validator that raises on odd input", () => {
  it("has its crashing rows FAILED with the crash as the answer, never errored", () => {
    const graded = report("python-crashes");
    expect(notPassed(graded).filter((row) => row.status === "errored").map((row) => `${row.id}: ${row.error}`)).toEqual([]);
    const crashed = graded.rows.filter((row) => row.status === "failed" && failingChecks(row).some((check) => isCrash(check.actual)));
    // TypeError: pattern applied to a number (no `type` in the schema); re.error: the call on a
    // tool registered with the pattern "[0-9", compiled only when the call validates
    expect(crashed.map((row) => row.id)).toEqual(expect.arrayContaining(["validate/pattern/ignored-for-number", "register/parameters/bad-pattern-refused"]));
  });

  it("with --tier all, the 100000-deep argument (RecursionError) is a failed row too", () => {
    const row = report("python-crashes", "tier-all").rows.find((r) => r.id === "validate/hardening/nesting-100000");
    expect(row?.status).toBe("failed");
    expect(failingChecks(row!).some((check) => isCrash(check.actual))).toBe(true);
  });

  it("names no pitfall for the crashes, and says the implementation crashed", () => {
    const { diagnosis } = report("python-crashes");
    // Its failures that are not crashes are no catalogued pitfall either: compile accepts a
    // pattern that does not compile (it is compiled lazily), and Python's $ matches before a final newline.
    expect(diagnosis.matches.map((match) => match.sentence)).toEqual([]);
    expect(diagnosis.lines.some((line) => /crashed/.test(line))).toBe(true);
  });
});

// The four below share one correct Python base with python-discovery-order's walk sorted; that
// base keeps one departure of its own, Python's `$` matching before a final newline (re.search),
// so each has that one row unexplained besides its own shape, and nothing else.
const DOLLAR = "validate/pattern/dollar-not-before-final-newline";
const unexplained = (fixture: Fixture) => report(fixture).diagnosis.unexplained;

describe("python-validates-nothing: the schema goes to the model only; a call runs the tool on any arguments and reports success", () => {
  it("is diagnosed as s10 (the tool runs on invalid arguments), whatever else its results say, and it holds its rows", () => {
    // checked by hand: call get_weather {"days":"3","unit":"kelvin","country":"FR"} → the tool ran, success;
    // compile and validate are correct (the four errors of the worked example, sorted)
    const { matches } = report("python-validates-nothing").diagnosis;
    expect([...named(report("python-validates-nothing"))]).toEqual(["s10"]);
    expect(matches[0]!.explains).toBe(report("python-validates-nothing").diagnosis.failing - 1);
    expect(unexplained("python-validates-nothing")).toEqual([DOLLAR]);
  });
});

describe("python-duplicates-shadow: a second tool of one name is accepted, both are listed, calls reach the last", () => {
  it("is diagnosed as s13 (duplicates replacing tools), though its definitions list both", () => {
    // checked by hand: register lookup twice → accepted; definitions → both lookups; call lookup → the second's answer
    expect([...named(report("python-duplicates-shadow"))]).toEqual(["s13"]);
    expect(unexplained("python-duplicates-shadow")).toEqual([DOLLAR]);
  });
});

describe("python-discovery-other: errors in the order another walk finds them (keywords alphabetical, properties in the argument's order)", () => {
  it("is diagnosed as s19 whatever the traversal, and s19 takes the worked example's tool message too", () => {
    // checked by hand: the worked example → $ unexpected "country", $.days, $.unit, then $ missing "city"
    expect([...named(report("python-discovery-other"))]).toEqual(["s19"]);
    expect(report("python-discovery-other").diagnosis.matches[0]!.rows).toContain("example/registry/four-errors-then-corrected");
    expect(unexplained("python-discovery-other")).toEqual([DOLLAR]);
  });
});

describe("python-discovery-required-first: errors in a walk's order that is sometimes sorted (its only bug beside Python's $)", () => {
  it("is named s19 and nothing else: a row its walk happens to get right is no evidence either way, and any wrong order of its own shows it", () => {
    const graded = report("python-discovery-required-first");
    expect([...named(graded)]).toEqual(["s19"]);
    const match = graded.diagnosis.matches[0]!;
    expect(match.hits).toBe(match.size);
    expect(unexplained("python-discovery-required-first")).toEqual([DOLLAR]);
  });
});

describe("python-first-additional: validation stops at the first property additionalProperties: false refuses", () => {
  it("names no pitfall (none in the catalogue drops errors), and puts the hand-worked example first among the unexplained", () => {
    // checked by hand: the worked example → only `$: unexpected property "country"`; {"a":1,"b":2} under
    // additionalProperties: false → one error, not two; a value with no extra property → every error, sorted
    const { diagnosis } = report("python-first-additional");
    expect(diagnosis.matches).toEqual([]);
    expect(diagnosis.groups![0]).toMatchObject({ section: "TestHandWorkedExample", weight: 25 });
    expect(diagnosis.groups!.flatMap((g) => g.rows)).toContain("example/validate/four-errors");
    expect(diagnosis.lines[1]).toMatch(/^ {2}example\/.* \(TestHandWorkedExample, weight 25\)/);
  });
});

describe("the same behaviour gets the same diagnosis whatever the run scores", () => {
  it.each(FIXTURES)("%s: the pitfalls named with --tier all and with --level verdict are those named with the defaults", (fixture) => {
    const ids = (run: RunName) => [...named(report(fixture, run))].sort();
    expect({ "tier-all": ids("tier-all"), verdict: ids("verdict") }).toEqual({ "tier-all": ids("defaults"), verdict: ids("defaults") });
  });
});
