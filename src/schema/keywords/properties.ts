import { child, type Check, type Keyword } from "../keyword.js";

/** `properties`: each named property that is present validates against its schema. */
export const properties: Keyword = (value, context) => {
  if (!(value instanceof Map)) return context.refuse("an object");
  const checks: [string, Check][] = [...value].map(([name, schema]) => [name, context.subschema(schema, name)]);
  return (instance, at, issues) => {
    if (!(instance instanceof Map)) return;
    for (const [name, check] of checks) {
      const property = instance.get(name);
      if (property !== undefined) check(property, child(at, name), issues);
    }
  };
};
