import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { linkTargets } from "../../src/subjects/sandbox/go-runtime.js";
import { runtimeBinds } from "../../src/subjects/sandbox/runtime.js";
import { needs } from "../helpers/machine.mjs";

// --runtime go on a GOROOT made of symlinks (Debian's and Ubuntu's: /usr/lib/go-1.19/src is a link
// into /usr/share/go-1.19), and the C compiler a -race or cgo build calls.

const scratch = mkdtempSync(join(tmpdir(), "tc-go-runtime-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Whether `path` is shown: bound itself, or inside a bound folder. */
const shown = (paths: string[], path: string) => paths.some((p) => p === path || path.startsWith(p + "/"));

describe("the targets of a GOROOT's symlinks", () => {
  it("finds links at depth 1 and 2 as their real paths, not following them, and skips dangling ones", () => {
    const share = join(scratch, "share", "go");
    mkdirSync(join(share, "src", "bufio"), { recursive: true });
    mkdirSync(join(share, "pkg", "include"), { recursive: true });
    const root = join(scratch, "lib", "go");
    mkdirSync(join(root, "pkg", "tool"), { recursive: true });
    writeFileSync(join(root, "VERSION"), "go1.19");
    symlinkSync("../../share/go/src", join(root, "src"));
    symlinkSync("../../../share/go/pkg/include", join(root, "pkg", "include"));
    symlinkSync("../nowhere", join(root, "misc"));
    const found = linkTargets(root, 3).sort();
    expect(found).toEqual([realpathSync(join(share, "pkg", "include")), realpathSync(join(share, "src"))].sort());
  });

  it("looks no deeper than asked", () => {
    const root = join(scratch, "deep");
    mkdirSync(join(root, "a", "b", "c"), { recursive: true });
    symlinkSync(scratch, join(root, "a", "b", "c", "link"));
    expect(linkTargets(root, 3)).toEqual([]);
    expect(linkTargets(root, 4)).toEqual([realpathSync(scratch)]);
  });
});

const go = needs("go", "gcc");
describe("runtimeBinds(['go']) on this machine's Go", () => {
  it.skipIf(go.lacking)(`shows GOROOT's stdlib sources at their real path, and gcc with cc1, as, ld and the C headers ${go.tag}`, () => {
    const ask = (cmd: string, ...args: string[]) => spawnSync(cmd, args, { encoding: "utf8" }).stdout.trim();
    const binds = runtimeBinds(["go"]);
    const paths = binds.paths;
    const goroot = ask("go", "env", "GOROOT");
    // the file the build reported missing on Debian: GOROOT/src/bufio, wherever it really is
    expect(shown(paths, realpathSync(join(goroot, "src", "bufio")))).toBe(true);
    expect(shown(paths, realpathSync(ask("gcc", "-print-prog-name=cc1")))).toBe(true);
    expect(shown(paths, realpathSync("/usr/include/stdio.h"))).toBe(true);
    for (const tool of ["gcc", "as", "ld"]) {
      const at = ask("sh", "-c", `command -v ${tool}`);
      const real = realpathSync(at);
      expect(shown(paths, real), tool).toBe(true);
      if (real !== at) expect(binds.links.some((link) => link.target === real), tool).toBe(true);
    }
  });
});
