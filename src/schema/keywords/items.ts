import { child, type Keyword } from "../keyword.js";

/** `items`: every element validates against the schema, at its index. */
export const items: Keyword = (value, context) => {
  const check = context.subschema(value);
  return (instance, at, issues) => {
    if (!Array.isArray(instance)) return;
    for (let i = 0; i < instance.length; i++) check(instance[i]!, child(at, i), issues);
  };
};
