import { Validator as CfworkerValidator } from "@cfworker/json-schema";
import Ajv2020Module from "ajv/dist/2020.js";
import { bench, describe } from "vitest";
import { compile } from "tool-conformance";
import { CASES, SIDES, groupName } from "./cases.js";

// Tool-call-sized arguments, in one run: JSON.parse alone (the floor), the reference
// (compiled once; validateJSON parses and validates), ajv (JSON.parse + compiled validate)
// and @cfworker/json-schema (JSON.parse + validate). The cases are in cases.ts; render.ts
// turns this run's --outputJson into the tables of docs/benchmarks.md and README.md.

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

for (const c of CASES) {
  const reference = compile(JSON.stringify(c.schema));
  const ajv = new Ajv2020({ allErrors: true, logger: false }).compile(c.schema as object);
  const cfworker = new CfworkerValidator(c.schema as object, "2020-12", false);
  // every side must reach the case's verdict, or the bench compares different work
  const errors = reference.validateJSON(c.argument).length;
  const verdicts = { reference: errors === 0, ajv: ajv(JSON.parse(c.argument)), cfworker: cfworker.validate(JSON.parse(c.argument)).valid };
  for (const [side, valid] of Object.entries(verdicts)) {
    if (valid !== c.valid) throw new Error(`bench case "${c.name}": ${side} says ${valid ? "valid" : "invalid"}, the case says ${c.valid ? "valid" : "invalid"}`);
  }
  if (errors !== c.errors) throw new Error(`bench case "${c.name}": the reference gives ${errors} errors, the case says ${c.errors}`);
  describe(groupName(c), () => {
    bench(SIDES.parse, () => {
      JSON.parse(c.argument);
    });
    bench(SIDES.reference, () => {
      reference.validateJSON(c.argument);
    });
    bench(SIDES.ajv, () => {
      ajv(JSON.parse(c.argument));
    });
    bench(SIDES.cfworker, () => {
      cfworker.validate(JSON.parse(c.argument));
    });
  });
}

// A catastrophic pattern: ^(a+)+$ on "aaa…a!" takes exponential time in a backtracking engine
// (ajv's, cfworker's: ECMA-262 RegExp) and linear time in RE2. The backtracking side runs on a
// small size only, so the bench never hangs; the growth table on stderr shows where it goes.
const CATASTROPHIC = { type: "string", pattern: "^(a+)+$" };
const attack = (n: number) => JSON.stringify("a".repeat(n) + "!");
const referenceCatastrophic = compile(JSON.stringify(CATASTROPHIC));
const ajvCatastrophic = new Ajv2020({ logger: false }).compile(CATASTROPHIC);
const SMALL = 20;

function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}
const growth = [16, 18, 20, 22, 24].map((n) => {
  const text = attack(n);
  return { n, ajvMs: time(() => ajvCatastrophic(JSON.parse(text))), referenceMs: time(() => referenceCatastrophic.validateJSON(text)) };
});
const big = [5_000, 100_000].map((n) => ({ n, referenceMs: time(() => referenceCatastrophic.validateJSON(attack(n))) }));
process.stderr.write(
  `\n^(a+)+$ on n a's and a "!": ajv (backtracking) against the reference (RE2)\n` +
    growth.map((g) => `  n=${g.n}: ajv ${g.ajvMs.toFixed(1)} ms, reference ${g.referenceMs.toFixed(3)} ms`).join("\n") +
    "\n" +
    big.map((g) => `  n=${g.n}: reference ${g.referenceMs.toFixed(2)} ms (ajv not run: about 2^n steps)`).join("\n") +
    "\n",
);

describe("catastrophic pattern ^(a+)+$", () => {
  bench(`reference, n=5000`, () => {
    referenceCatastrophic.validateJSON(attack(5000));
  });
  bench(`ajv, n=${SMALL} (bounded: it doubles with every extra a)`, () => {
    ajvCatastrophic(JSON.parse(attack(SMALL)));
  });
});
