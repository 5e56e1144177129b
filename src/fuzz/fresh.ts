import { createHmac } from "node:crypto";
import fc from "fast-check";
import type { Part, ProfileName, Row, Tier } from "../corpus/rows.js";
import { domainFor } from "./fuzz.js";
import { defaultNaming, rowOf } from "./oracle.js";
import { probeArb } from "./probes.js";
import { generatedWhy } from "./why.js";

// `score --fresh N --seed S`: N cases generated for this run, their expectations from the
// reference, scored as a part of their own. The same seed gives the same cases; a new seed gives
// cases no table of the public corpus's answers holds. Graded with a key, the seed is the key's and
// the attempt's (seedFromKey): each version of a submission gets cases of its own, so a case a
// student copies out of a run never comes back in the next.

export const FRESH_PART = "fresh" satisfies Part;

/** N generated rows, the same for the same seed, profile and tiers. */
export async function freshRows(count: number, seed: number, profile: ProfileName, tiers: readonly Tier[]): Promise<Row[]> {
  if (count === 0) return [];
  const probes = fc.sample(probeArb({ domain: domainFor(tiers), kinds: ["validate", "registry"], profile }), { numRuns: count, seed });
  const rows: Row[] = [];
  for (const [i, probe] of probes.entries()) {
    const { id, rule } = defaultNaming(probe);
    // the id names the case by its content, never the seed (a student must not learn it); the why says the rules it tests
    // the rule names what the case tests, never its values (a student reads it in a keyed report)
    const row = await rowOf(probe, profile, { id: `fresh/${i + 1}-${id.slice(-10)}`, rule: ruleWithoutValues(rule) });
    rows.push({ ...row, why: generatedWhy(row), part: FRESH_PART });
  }
  return rows;
}

/**
 * The --fresh seed a grader's key stands for: HMAC-SHA256 of a fixed label (and of the attempt,
 * a submission's content hash, when grade gives one), its first 31 bits.
 */
export function seedFromKey(key: Uint8Array, attempt?: string): number {
  const mac = createHmac("sha256", key).update("tool-conformance fresh seed");
  if (attempt !== undefined) mac.update(`\0${attempt}`);
  return mac.digest().readUInt32BE(0) & 0x7fffffff;
}

/** `keywords type, required` of `keywords type, required on "{…}"`; `registry: register, call` of a sequence's names. */
export function ruleWithoutValues(rule: string): string {
  const keywords = /^(keywords .*?) on /s.exec(rule);
  if (keywords) return keywords[1]!;
  const ops = rule.split(", ").map((step) => /^[a-z]+/.exec(step)?.[0] ?? "step");
  return `registry: ${ops.join(", ")}`;
}
