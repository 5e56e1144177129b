import { makesMessageCheck, messageTierOf, rowsForProfile, type Level, type ProfileName, type Row, type Section, type Tier } from "../corpus/rows.js";

/** Which rows of the corpus a run takes. */
export interface Selection {
  profile: ProfileName;
  /** Tiers to score; default all. A row is taken when its own tier is one, or its exact-text checks' tier is and they count (level messages). */
  tiers?: readonly Tier[];
  /** The level scored; default messages. */
  level?: Level;
  /** Sections to run; default all. */
  sections?: readonly Section[];
  /** Globs over row ids (or section names); a row is taken when any matches. Default all. */
  filters?: readonly string[];
}

/**
 * A glob over row ids: `*` matches any run of characters (slashes included), `?` one character,
 * everything else itself. `validate/*` is every validate row; `*minLength*` every row naming it.
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (const char of glob) {
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "u");
}

/** Whether a filter takes a row: its glob matches the row id or the section name. */
export function filterMatches(filter: string, row: Pick<Row, "id" | "section">): boolean {
  const pattern = globToRegExp(filter);
  return pattern.test(row.id) || pattern.test(row.section);
}

/** The rows a selection takes, in corpus order, and the filters that took none (a likely typo). */
export function selectRows(rows: readonly Row[], selection: Selection): { rows: Row[]; unmatched: string[] } {
  const filters = (selection.filters ?? []).map((filter) => ({ filter, pattern: globToRegExp(filter), hits: 0 }));
  const taken = rowsForProfile(rows, selection.profile).filter((row) => {
    if (selection.tiers && !selection.tiers.includes(row.tier)) {
      const texts = (selection.level ?? "messages") === "messages" && makesMessageCheck(row) && selection.tiers.includes(messageTierOf(row));
      if (!texts) return false;
    }
    if (selection.sections && !selection.sections.includes(row.section)) return false;
    if (filters.length === 0) return true;
    let taken = false;
    for (const f of filters) {
      if (f.pattern.test(row.id) || f.pattern.test(row.section)) {
        f.hits++;
        taken = true;
      }
    }
    return taken;
  });
  return { rows: taken, unmatched: filters.filter((f) => f.hits === 0).map((f) => f.filter) };
}
