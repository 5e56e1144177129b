import { child, type Check, type Keyword } from "../keyword.js";

/** `properties`: each named property that is present validates against its schema. */
export const properties: Keyword = (value, context) => {
  if (!(value instanceof Map)) return context.refuse("an object");
  const names = [...value.keys()];
  const checks: Check[] = names.map((name) => context.subschema(value.get(name)!, name));
  return (instance, at, issues) => {
    if (!(instance instanceof Map)) return;
    // Stryker disable next-line EqualityOperator: one step past the end reads the name undefined, which no object has
    for (let i = 0; i < names.length; i++) {
      const property = instance.get(names[i]!);
      if (property !== undefined) checks[i]!(property, child(at, names[i]!), issues);
    }
  };
};
