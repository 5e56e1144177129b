import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { PACKAGE_ROOT } from "../../corpus/load.js";
import { kindOf } from "./paths.js";

// Copies of this tool a sandbox would show besides the package itself: each is hidden like it, so
// a subject cannot read the corpus's answers from a global install.

/** The package's name, as its package.json says. */
function packageName(): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { name?: string }).name;
  } catch {
    return undefined;
  }
}

/** A folder's entries; none when it cannot be read (absent, not a folder, closed to us). */
function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Every other copy of this tool the sandbox would show: packages of the same name in the global
 * node_modules folders (npm i -g, a system package, nvm's or a prefix's), found by their
 * package.json, not by folder name.
 */
export function otherCopies(binds: readonly string[] = []): string[] {
  const name = packageName();
  if (!name) return [];
  const roots = new Set<string>(["/usr/lib/node_modules", "/usr/local/lib/node_modules", "/usr/share/nodejs", "/usr/lib/nodejs", "/opt/node_modules", join(dirname(dirname(process.execPath)), "lib", "node_modules")]);
  if (process.env.npm_config_prefix) roots.add(join(process.env.npm_config_prefix, "lib", "node_modules"));
  if (process.env.TOOL_CONFORMANCE_EXTRA_MODULES) for (const dir of process.env.TOOL_CONFORMANCE_EXTRA_MODULES.split(delimiter)) if (dir) roots.add(dir);
  const found = new Set<string>();
  const look = (dir: string, depth: number) => {
    for (const entry of entriesOf(dir)) {
      const path = join(dir, entry);
      if (entry.startsWith("@") && depth === 0) {
        look(path, 1);
        continue;
      }
      try {
        const manifest = JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as { name?: string };
        if (manifest.name === name) found.add(realpathSync(path));
      } catch {
        // not a package
      }
      // a package installed as a dependency of another global one
      if (depth === 0 && existsSync(join(path, "node_modules"))) look(join(path, "node_modules"), 1);
    }
  };
  for (const root of roots) look(root, 0);
  // a runtime folder shown with --sandbox-bind (an nvm or a prefix) may hold one: its node_modules folders, a few levels down
  const search = (dir: string, depth: number) => {
    for (const entry of entriesOf(dir)) {
      const path = join(dir, entry);
      if (kindOf(path) !== "dir") continue;
      if (entry === "node_modules") look(path, 0);
      else if (depth > 0 && !entry.startsWith(".")) search(path, depth - 1);
    }
  };
  for (const bind of binds) search(bind, 4);
  return [...found];
}
