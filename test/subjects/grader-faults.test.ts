import { describe, expect, it } from "vitest";
import { stdioSubject } from "../../src/subjects/stdio.js";
import { graderFaultOf, SubjectError } from "../../src/subjects/subject.js";
import type { Sandbox } from "../../src/subjects/sandbox/common.js";
import { closeInheritedDescriptors, inheritableDescriptors } from "../../src/subjects/sandbox/descriptors.js";
import { closeSync, openSync } from "node:fs";

// A failure is the grader's only when the operating system says so (an errno from spawning, a
// sandbox that exited before running the subject), never when the subject's words say so.

/** A sandbox whose plan spawns `file` with `args` and, like bwrap, a status descriptor on fd 4. */
function planning(file: string, args: string[], statusFd?: number): Sandbox {
  return {
    mode: "bwrap",
    summary: "a test sandbox",
    plan: () => ({ file, args, shell: false, env: { PATH: process.env.PATH }, stdoutFd: 3, ...(statusFd !== undefined ? { statusFd } : {}), signalAsExitCode: true }),
  };
}

async function startError(sandbox: Sandbox): Promise<unknown> {
  try {
    const session = await stdioSubject("the subject", { sandbox, maxRestarts: 0, startTimeoutMs: 5000 }).open("ag02");
    await session.close();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("the grader's own failures", () => {
  it("a spawn that fails with an errno is the grader's, named by the errno", async () => {
    const error = await startError(planning("/nonexistent/bwrap", []));
    expect(error).toBeInstanceOf(SubjectError);
    expect(graderFaultOf(error)).toBe("spawn /nonexistent/bwrap ENOENT");
  });

  it("a launcher that exits with a code before reporting the command's exit is the grader's; one that reports it is the subject's", async () => {
    // the launcher dies at once, as bwrap does when it cannot fork or build the namespace
    const failed = await startError(planning("/bin/sh", ["-c", "echo 'bwrap: Creating new namespace failed' >&2; exit 1"], 4));
    expect(graderFaultOf(failed)).toBe("the sandbox exited with code 1 before the subject ran");
    // the subject ran and exited 1, saying the grader's words: its own failure
    const own = await startError(planning("/bin/sh", ["-c", 'echo \'{ "child-pid": 1 }\' >&4; echo "spawn /bin/sh EAGAIN" >&2; echo \'{ "exit-code": 1 }\' >&4; exit 1'], 4));
    expect(own).toBeInstanceOf(SubjectError);
    expect(String((own as Error).message)).toMatch(/EAGAIN/);
    expect(graderFaultOf(own)).toBeUndefined();
  });

  it("descriptors this process holds without close-on-exec are closed before a sandbox starts; Node's own are kept", () => {
    const fd = openSync("/dev/null", "r"); // Node opens with close-on-exec: not inherited, kept
    expect(inheritableDescriptors()).not.toContain(fd);
    closeInheritedDescriptors();
    expect(() => closeSync(fd)).not.toThrow();
  });
});
