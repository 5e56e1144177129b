import { TIERS, type Level, type ProfileName, type Tier } from "../corpus/rows.js";
import { shellQuote } from "../report/reporters/text.js";

// The command a report names for rerunning a row: what the student types, without the grader's folders.

export interface RerunFlags {
  subject?: string;
  module?: string;
  profile: ProfileName;
  level: Level;
  timeout?: string;
  /** How the subject is built first (grade's --build): the rerun line starts with it. */
  rerunBuild?: string;
}

/** The command that scores this subject with these settings; a row's rerun command adds --filter ID. */
export function rerunCommand(positional: string | undefined, flags: RerunFlags, tiers: Tier[]): string {
  const words = ["tool-conformance", "score"];
  if (flags.subject !== undefined) words.push("--subject", shellQuote(withoutFolders(flags.subject)));
  else if (flags.module !== undefined) words.push("--module", shellQuote(flags.module));
  else words.push(shellQuote(positional!));
  if (flags.profile !== "ag02") words.push("--profile", flags.profile);
  if (flags.level !== "messages") words.push("--level", flags.level);
  words.push("--tier", tiers.length === TIERS.length ? "all" : tiers.join(","));
  if (flags.timeout !== undefined) words.push("--timeout", shellQuote(flags.timeout));
  // no --corpus, --jsts, --fresh or --seed: a student reruns a corpus row without the grader's files or seed
  // a compiled subject (a Go student's ./adapter) exists only once built: the line builds it first
  const build = flags.rerunBuild === undefined || flags.rerunBuild.trim() === "" ? "" : `${withoutFolders(flags.rerunBuild.trim())} && `;
  return build + words.join(" ");
}

/**
 * A subject command as a student runs it from their own folder: every absolute path shown by its
 * file name (`python3 /home/grader/kit/adapter.py /class/s01/toolreg.py` is `python3 adapter.py
 * toolreg.py`), so a report names none of the grader's folders.
 */
export function withoutFolders(command: string): string {
  return command.replace(/(^|[\s=])(['"]?)\/(?:[^\s'"]*\/)?([^\s'"/]+)\2(?=[\s;&|)]|$)/g, "$1$2$3$2");
}
