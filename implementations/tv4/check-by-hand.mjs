import tv4 from "tv4";
const check = (label, schema, data) => {
  let out;
  try {
    const r = tv4.freshApi().validateMultiple(data, schema);
    out = r.valid ? `valid${r.missing.length ? ` (missing ${JSON.stringify(r.missing)})` : ""}` : JSON.stringify(r.errors.map((e) => [e.dataPath, e.message]));
  } catch (error) {
    out = `threw ${error.name}: ${error.message}`;
  }
  console.log(label, out);
};
const weather = { type: "object", properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 7 }, unit: { enum: ["c", "f"] } }, required: ["city"], additionalProperties: false };
check("1", weather, { days: "3", unit: "kelvin", country: "FR" });
check("2", { const: "a" }, "b");
check("3", { type: "string", minLength: 5, pattern: "^x" }, "abc");
check("4", { required: ["valueOf"] }, {});
check("5", { properties: { a: { type: "string" } }, additionalProperties: false }, { constructor: 1 });
check("6", { maxLength: 1 }, "\u{1F4A9}");
check("7", { type: "string", format: "email" }, "x");
check("8", { $ref: "#/definitions/nowhere" }, 1);
check("9", { type: "string", pattern: "^[a-z" }, "x");
check("10", { type: "string", pattern: "(?i)^a$" }, "A");
check("11", { type: "string", pattern: "/^a$/i" }, "A");
check("12", { minimum: 1, exclusiveMinimum: true }, 1);
check("13", { exclusiveMinimum: 5 }, 1);
check("14", { enum: [] }, 1);
check("15", "x", 1);
check("16", [], 1);
check("17", { type: "bogus" }, 1);
