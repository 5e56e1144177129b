import { isActive, type ScoreOptions, type Status } from "../run/outcome.js";
import type { Row } from "../corpus/rows.js";
import type { Check } from "../run/run-row.js";
import { keywordsOf } from "./model.js";

// What makes two findings "the same": a key KIND/SYMPTOM[/KEYWORDS] computed from the shrunk case.
// KIND is the row's kind, SYMPTOM what the subject did wrong (the first failing check, by direction),
// KEYWORDS the keywords left in the shrunk case's schemas. `fuzz` reports each key once, and
// `--ignore RULE` / `--known FILE` set keys aside (docs/fuzzing.md, "Many findings").

export const KINDS = ["validate", "compile", "registry", "mcp"] as const;
export type FindingKind = (typeof KINDS)[number];

/** Every symptom a key can name, by kind. */
export const SYMPTOMS: Readonly<Record<FindingKind, readonly string[]>> = {
  validate: ["accepts", "refuses", "refuses-schema", "paths", "messages", "errored", "unstable"],
  compile: ["accepts", "refuses", "messages", "errored", "unstable"],
  // fuzz --mcp: a tool that ran, crashed or hung on arguments the reference proves invalid
  mcp: ["ran", "crashed", "hung"],
  registry: [
    "register-accepts",
    "register-refuses",
    "register-error",
    "call-accepts",
    "call-refuses",
    "call-runs",
    "call-reply",
    "call-throws",
    "call-lists",
    "call-content",
    "names",
    "definitions",
    "other",
    "errored",
    "unstable",
  ],
};

/** A judged case: its row, and how the subject did on it. */
export interface Judged {
  row: Row;
  status: Status;
  checks: Check[];
  error?: string;
}

/** What the subject did wrong on a case, in a word: the first failing check, read by its direction. */
export function symptomOf(judged: Judged, scoring: ScoreOptions): string {
  if (judged.status === "errored") return "errored";
  const check = judged.checks.find((c) => isActive(c, scoring) && !c.pass);
  if (judged.status === "passed" || !check) return "unstable";
  switch (judged.row.kind) {
    case "validate":
      if (check.level === "verdict") {
        if (check.expected === "compiles") return "refuses-schema";
        return check.expected === "valid" ? "refuses" : "accepts";
      }
      return check.level;
    case "compile":
      if (check.level === "verdict") return check.expected === "refused" ? "accepts" : "refuses";
      return "messages";
    case "registry":
      return registrySymptom(check);
  }
}

/** The op a registry check is about, from the label run-row.ts gives it (`step 2: call "a": outcome`). */
function registrySymptom(check: Check): string {
  const op = /^step [\d.]+: (register|names|definitions|call|get|validate)\b/.exec(check.what)?.[1];
  const word = (value: unknown) => (value === "accepted" || value === "refused" ? value : undefined);
  if (op === "register") {
    if (check.level !== "verdict") return "register-error";
    return word(check.expected) === "refused" ? "register-accepts" : "register-refuses";
  }
  if (op === "names" || op === "definitions") return op;
  if (op !== "call") return "other";
  if (check.expected === "a Result") return "call-throws";
  if (check.level === "messages") return "call-content";
  if (check.level === "paths") return "call-lists";
  const wanted = (check.expected ?? {}) as Record<string, unknown>;
  const observed = (check.actual ?? {}) as Record<string, unknown>;
  if (wanted.isError !== observed.isError) return wanted.isError === false ? "call-refuses" : "call-accepts";
  const same = (key: string) => JSON.stringify(wanted[key]) === JSON.stringify(observed[key]);
  return same("runs") && same("otherToolsRan") ? "call-reply" : "call-runs";
}

/**
 * Registry symptoms that shrinking never changes: a case that shows one keeps it (same way is same
 * symptom for them), stays a registry case, and a registry key has no keywords. So the key of such a
 * case is known before it is shrunk.
 */
const SETTLED = new Set(["call-reply", "call-throws", "call-lists", "call-content", "names", "definitions", "register-error", "other"]);

/** The key a case will shrink to, when it is known already (see SETTLED). */
export function settledKey(row: Row, symptom: string): string | undefined {
  return row.kind === "registry" && SETTLED.has(symptom) ? findingKey(row, symptom) : undefined;
}

/**
 * The key of a finding: KIND/SYMPTOM, then /KEYWORDS when a validate or compile case's schema uses
 * any. A registry case has no KEYWORDS: a disagreement that is its tools' schemas' shrinks to a
 * compile or validate case, so the schemas left in a registry case are whatever its calls needed.
 */
export function findingKey(row: Row, symptom: string): string {
  const keywords = keywordsOfRow(row);
  return `${row.kind}/${symptom}${keywords.length > 0 ? `/${keywords.join(",")}` : ""}`;
}

/** The keywords of a validate or compile row's schema, sorted; none for a registry row. */
export function keywordsOfRow(row: Row): string[] {
  if (row.kind === "registry") return [];
  return keywordsOf(row.schema ?? parse(row.schemaText)).sort();
}

function parse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Which way a symptom goes, whatever the kind: the subject accepts what the reference refuses (a
 * schema, a tool, an argument, a call), refuses what it accepts, or answers otherwise.
 */
function directionOf(symptom: string): string {
  if (symptom === "accepts" || symptom === "register-accepts" || symptom === "call-accepts") return "accepts";
  if (symptom === "refuses" || symptom === "refuses-schema" || symptom === "register-refuses" || symptom === "call-refuses") return "refuses";
  return symptom;
}

/** How plain a symptom is: shrinking may trade a symptom for a plainer one (other paths → a wrong verdict). */
const PLAINNESS: Record<string, number> = { accepts: 0, refuses: 0, paths: 1, "call-runs": 1, messages: 2 };

/**
 * Whether a smaller case still fails "the same way" as the one being shrunk: in the same direction
 * (a call refused and a validation refused are one), or in a plainer one than different error paths
 * or messages, or a tool run when it should not be (their cause, alone: a wrong verdict). Keeps
 * shrinking from wandering to another bug.
 */
export function sameWay(target: string, candidate: string): boolean {
  const [t, c] = [directionOf(target), directionOf(candidate)];
  if (t === c) return true;
  const [pt, pc] = [PLAINNESS[t], PLAINNESS[c]];
  return pt !== undefined && pc !== undefined && pc < pt;
}

/** A parsed --ignore rule. */
export interface Rule {
  text: string;
  /** The parts of a key it matches, from the start ("*" matches any one part); or a keyword. */
  parts?: string[];
  keyword?: string;
}

/** Parses a rule; throws an Error whose message is one line. */
export function parseRule(text: string): Rule {
  const trimmed = text.trim();
  if (trimmed === "") throw new Error("an empty rule");
  if (/\s/.test(trimmed)) throw new Error(`${JSON.stringify(text)} has a space in it`);
  const parts = trimmed.split("/");
  if (parts.length === 1 && !(KINDS as readonly string[]).includes(trimmed) && trimmed !== "*") return { text: trimmed, keyword: trimmed };
  if (parts.length > 3 || parts.some((p) => p === "")) throw new Error(`${JSON.stringify(text)} is not KIND[/SYMPTOM[/KEYWORDS]] or a keyword`);
  const [kind, symptom, keywords] = parts as [string, string | undefined, string | undefined];
  if (kind !== "*" && !(KINDS as readonly string[]).includes(kind)) throw new Error(`${JSON.stringify(text)}: the kind is one of ${KINDS.join(", ")} (or *)`);
  if (symptom !== undefined && symptom !== "*") {
    const allowed = kind === "*" ? [...new Set(Object.values(SYMPTOMS).flat())] : SYMPTOMS[kind as FindingKind];
    if (!allowed.includes(symptom)) throw new Error(`${JSON.stringify(text)}: the symptom of a ${kind === "*" ? "" : `${kind} `}finding is one of ${allowed.join(", ")} (or *)`);
  }
  // a keyword list matches in any order it is written
  const normal = keywords === undefined || keywords === "*" ? keywords : keywords.split(",").sort().join(",");
  return { text: trimmed, parts: [kind, ...(symptom !== undefined ? [symptom] : []), ...(normal !== undefined ? [normal] : [])] };
}

/** Whether a rule matches a finding key (see parseRule, and --ignore's help). */
export function ruleMatches(rule: Rule, key: string): boolean {
  const parts = key.split("/");
  if (rule.keyword !== undefined) return (parts[2] ?? "").split(",").includes(rule.keyword);
  const wanted = rule.parts ?? [];
  // KIND/SYMPTOM matches keys with any keywords; a third part must be the keyword list exactly ("" when none)
  return wanted.every((part, i) => part === "*" || part === (parts[i] ?? ""));
}
