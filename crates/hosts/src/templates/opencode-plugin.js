// tokenjuice-managed: opencode plugin written by `tokenjuice install opencode`; `tokenjuice uninstall opencode` removes it. Reinstalling rewrites this file: do not edit it.
//
// Before opencode runs a bash command, this rewrites it to
// `<tokenjuice> wrap --source opencode -- <shell> -lc '<command>'`, so the output the model
// reads is tokenjuice's compacted output and the exit code is the command's. Commands that
// already run through `tokenjuice wrap` are left alone; any error leaves the command as it
// was (fail open). Only the plugin itself is exported: opencode calls every export as a plugin.
import { accessSync, constants, statSync } from "node:fs";

const LAUNCHER = "__TOKENJUICE_LAUNCHER__";
const WRAPPED = /(^|[\s/\\])tokenjuice(\.exe|\.cmd|\.bat)?['"]?\s+(\S+\s+)*wrap(\s|$)/i;

function quote(s) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
}

function executable(p) {
  try {
    if (!p.startsWith("/") || !statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function hostShell() {
  const env = process.env;
  const candidates = [env.TOKENJUICE_OPENCODE_SHELL, env.SHELL, "/bin/bash", "/usr/bin/bash", "/bin/sh"];
  return candidates.find((c) => typeof c === "string" && executable(c));
}

function rewrite(command) {
  if (typeof command !== "string" || !command.trim() || WRAPPED.test(command)) return undefined;
  const shell = hostShell();
  if (!shell) return undefined;
  const launcher = /\.(c|m)?js$/i.test(LAUNCHER) ? `node ${quote(LAUNCHER)}` : quote(LAUNCHER);
  return `${launcher} wrap --source opencode -- ${quote(shell)} -lc ${quote(command)}`;
}

export const TokenjuicePlugin = async () => ({
  "tool.execute.before": async (input, output) => {
    try {
      if (!input || input.tool !== "bash" || !output || !output.args) return;
      const next = rewrite(output.args.command);
      if (next) output.args.command = next;
    } catch {}
  },
});
