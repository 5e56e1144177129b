// The arguments the validation benchmarks run, shared by validate.bench.ts (speed), memory.ts
// (allocation) and render.ts (the tables), so the three always name the same cases.

export interface Case {
  name: string;
  schema: unknown;
  argument: string;
  /** Every side must agree on the verdict; the reference must report exactly `errors` errors. */
  valid: boolean;
  errors: number;
  /** The row's label in the "At a glance" table of docs/benchmarks.md. */
  readme: string;
}

/** The bench names inside each case's group, in table order. */
export const SIDES = {
  parse: "JSON.parse alone",
  reference: "reference validateJSON",
  ajv: "ajv (JSON.parse + validate)",
  cfworker: "@cfworker/json-schema (JSON.parse + validate)",
} as const;
export type Side = keyof typeof SIDES;

/** vitest's group name for a case: the name and the argument's size. */
export const groupName = (c: Case): string => `${c.name} (${c.argument.length} bytes)`;

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

const HAND_WORKED = {
  type: "object",
  properties: {
    city: { type: "string", minLength: 1 },
    days: { type: "integer", minimum: 1, maximum: 7 },
    unit: { enum: ["c", "f"] },
  },
  required: ["city"],
  additionalProperties: false,
};

export const CASES: Case[] = [
  {
    name: "hand-worked example",
    schema: HAND_WORKED,
    argument: '{"city":"Paris","days":3,"unit":"c"}',
    valid: true,
    errors: 0,
    readme: "validate the hand-worked example (parse + validate)",
  },
  {
    // missing "city", unexpected "extra", days not an integer, unit not in the enum
    name: "hand-worked example, invalid (four errors)",
    schema: HAND_WORKED,
    argument: '{"days":"3","unit":"k","extra":true}',
    valid: false,
    errors: 4,
    readme: "the hand-worked example, invalid (four errors)",
  },
  {
    name: "20-property object",
    schema: { type: "object", properties: twentySchema, required: Object.keys(twentySchema), additionalProperties: false },
    argument: JSON.stringify(twenty),
    valid: true,
    errors: 0,
    readme: "a 20-property object",
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
    valid: true,
    errors: 0,
    readme: "a 1,000-element array of integers",
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
    valid: true,
    errors: 0,
    readme: "a 10 KB string against a pattern",
  },
];

// The memory case: a 1 MB tool argument of table rows, every item checked.
const TAGS = ["new", "sale", "clearance", "imported", "organic", "bulk", "fragile", "limited"];
export const MEMORY_SCHEMA = {
  type: "object",
  properties: {
    rows: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: { type: "integer", minimum: 1 },
          name: { type: "string", minLength: 1, maxLength: 64 },
          tags: { type: "array", items: { enum: TAGS }, maxItems: 4 },
          score: { type: "number", minimum: 0, maximum: 100 },
        },
        required: ["id", "name", "tags", "score"],
        additionalProperties: false,
      },
    },
  },
  required: ["rows"],
  additionalProperties: false,
};
/** The memory bench's extra side: the reference when the exact parser must read the text. */
export const EXACT_LABEL = "reference validateJSON, one number written 0.250 (read by the exact parser)";
export const MEMORY_SHAPE =
  '`{"rows":[{"id":1,"name":"…","tags":["…"],"score":12.5}, …]}`: each row checked for type, ' +
  "properties, required, additionalProperties: false, minimum/maximum, enum (tags) and maxLength (name)";

/** Rows until the text reaches 1 MiB. */
export function memoryArgument(bytes = 1 << 20): { text: string; rows: number } {
  const rows: unknown[] = [];
  let size = '{"rows":[]}'.length;
  for (let i = 1; size < bytes; i++) {
    const row = {
      id: i,
      name: `${words[i % words.length]} item number ${i}`,
      tags: [TAGS[i % TAGS.length], TAGS[(i * 3 + 1) % TAGS.length]],
      score: (i % 400) / 4,
    };
    rows.push(row);
    size += JSON.stringify(row).length + (rows.length > 1 ? 1 : 0);
  }
  return { text: JSON.stringify({ rows }), rows: rows.length };
}
