import { shellLine, type Sandbox } from "./common.js";

// No isolation: the command runs through /bin/sh as the harness's own user, with the harness's
// environment, able to read every file that user can and to use the network. The harness kills
// the process group it starts; a process that calls setsid leaves that group and survives, and
// a harness killed with SIGKILL leaves its subjects running. For trusted code only.

export function noSandbox(): Sandbox {
  return {
    mode: "none",
    summary: "no sandbox: the subject runs as this user, sees every file this user can, and can use the network",
    plan(command, base = {}) {
      return { file: shellLine(command), args: [], shell: true, cwd: base.cwd, env: base.env ?? process.env, stdoutFd: 1, signalAsExitCode: false };
    },
  };
}
