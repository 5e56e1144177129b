import { Validator as CfworkerValidator } from "@cfworker/json-schema";
import Ajv2020Module from "ajv/dist/2020.js";
import { bench, describe } from "vitest";
import { compile } from "../src/schema/compile.js";

// Tool-call-sized arguments, in one run: JSON.parse alone (the floor), the reference
// (compiled once; validateJSON parses and validates), ajv (JSON.parse + compiled validate)
// and @cfworker/json-schema (JSON.parse + validate). docs/benchmarks.md quotes the figures.

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

interface Case {
  name: string;
  schema: unknown;
  argument: string;
}

const words = ["alpha", "beta", "gamma", "delta", "epsilon"];
const twenty: Record<string, unknown> = {};
const twentySchema: Record<string, unknown> = {};
for (let i = 0; i < 20; i++) {
  const kind = i % 5;
  const name = `field_${i}`;
  if (kind === 0) {
    twentySchema[name] = { type: "string", minLength: 1, maxLength: 64 };
    twenty[name] = `value number ${i}`;
  } else if (kind === 1) {
    twentySchema[name] = { type: "integer", minimum: 0, maximum: 1000 };
    twenty[name] = i * 7;
  } else if (kind === 2) {
    twentySchema[name] = { enum: words };
    twenty[name] = words[i % words.length];
  } else if (kind === 3) {
    twentySchema[name] = { type: "boolean" };
    twenty[name] = i % 2 === 0;
  } else {
    twentySchema[name] = { type: "number", minimum: -1e6, maximum: 1e6 };
    twenty[name] = i * 1.25;
  }
}

export const CASES: Case[] = [
  {
    name: "hand-worked example",
    schema: {
      type: "object",
      properties: {
        city: { type: "string", minLength: 1 },
        days: { type: "integer", minimum: 1, maximum: 7 },
        unit: { enum: ["c", "f"] },
      },
      required: ["city"],
      additionalProperties: false,
    },
    argument: '{"city":"Paris","days":3,"unit":"c"}',
  },
  {
    name: "20-property object",
    schema: { type: "object", properties: twentySchema, required: Object.keys(twentySchema), additionalProperties: false },
    argument: JSON.stringify(twenty),
  },
  {
    name: "1,000-element array",
    schema: {
      type: "object",
      properties: { ids: { type: "array", items: { type: "integer", minimum: 0 }, maxItems: 1000 } },
      required: ["ids"],
      additionalProperties: false,
    },
    argument: JSON.stringify({ ids: Array.from({ length: 1000 }, (_, i) => i * 37) }),
  },
  {
    name: "10 KB string with a pattern",
    schema: {
      type: "object",
      properties: { text: { type: "string", maxLength: 20000, pattern: "^[a-z ]+$" } },
      required: ["text"],
      additionalProperties: false,
    },
    argument: JSON.stringify({ text: "lorem ipsum dolor sit amet ".repeat(380).slice(0, 10240) }),
  },
];

for (const c of CASES) {
  const reference = compile(JSON.stringify(c.schema));
  const ajv = new Ajv2020({ allErrors: true, logger: false }).compile(c.schema as object);
  const cfworker = new CfworkerValidator(c.schema as object, "2020-12", false);
  // every side must agree the argument is valid, or the bench measures the wrong thing
  if (reference.validateJSON(c.argument).length > 0 || !ajv(JSON.parse(c.argument)) || !cfworker.validate(JSON.parse(c.argument)).valid) {
    throw new Error(`bench case "${c.name}": the argument must be valid for every validator`);
  }
  describe(`${c.name} (${c.argument.length} bytes)`, () => {
    bench("JSON.parse alone", () => {
      JSON.parse(c.argument);
    });
    bench("reference validateJSON", () => {
      reference.validateJSON(c.argument);
    });
    bench("ajv (JSON.parse + validate)", () => {
      ajv(JSON.parse(c.argument));
    });
    bench("@cfworker/json-schema (JSON.parse + validate)", () => {
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
