import { compareCodePoints } from "../json/value.js";

/** One step into a value: a property name or an array index. */
export type Segment = string | number;

/** The seed's rendering: `$`, `$.name`, `$.tags[1]`. */
export function formatPath(segments: readonly Segment[]): string {
  let out = "$";
  for (const segment of segments) out += typeof segment === "number" ? `[${segment}]` : `.${segment}`;
  return out;
}

/** The pointer profile's rendering (RFC 6901): ``, `/name`, `/tags/1`. */
export function formatPointer(segments: readonly Segment[]): string {
  return segments.map((segment) => "/" + String(segment).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

export type PathStyle = "dollar" | "pointer";

export function renderPath(segments: readonly Segment[], style: PathStyle): string {
  return style === "pointer" ? formatPointer(segments) : formatPath(segments);
}

/** Sorts by rendered path, then message, in code-point order: the same text on every run. */
export function compareErrors(
  a: { readonly path: string; readonly message: string },
  b: { readonly path: string; readonly message: string },
): number {
  return compareCodePoints(a.path, b.path) || compareCodePoints(a.message, b.message);
}
