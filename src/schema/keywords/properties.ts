import { isObject } from "../../json/value.js";
import { NOTHING } from "../check.js";
import type { Keyword } from "../keyword.js";

/** `properties`: each named property that is present validates against its schema. */
export const properties: Keyword = (value, context) => {
  if (!isObject(value)) return context.refuse("an object");
  const members = context.members();
  for (const name of Object.keys(value)) members.declare(name, context.subschema(value[name]!, name));
  return NOTHING;
};
