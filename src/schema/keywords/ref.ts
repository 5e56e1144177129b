import { isObject } from "../../json/value.js";
import { NOTHING } from "../check.js";
import type { Keyword } from "../keyword.js";

/** The lesson profile's `$ref`: a local reference into the root's `definitions` or `$defs` (resolved by the compiler). */
export const ref: Keyword = (value, context) => {
  if (typeof value !== "string") return context.refuse("a string");
  return context.reference(value);
};

/** `definitions` and `$defs`: named schemas for `$ref`. Each must be a schema; they check nothing where they stand. */
export const definitions: Keyword = (value, context) => {
  if (!isObject(value)) return context.refuse("an object");
  for (const name of Object.keys(value)) context.subschema(value[name]!, name);
  return NOTHING;
};
