// tokenjuice-managed: opencode plugin written by `tokenjuice install opencode`; `tokenjuice uninstall opencode` removes it. Reinstalling rewrites this file: do not edit it.
//
// After opencode ran a bash command, this replaces the text the model reads with tokenjuice's
// compacted text (through `tokenjuice reduce-json`). The command itself is not touched: it ran
// exactly as the model asked, under opencode's own permission rules. The full output is read
// from opencode's saved file when opencode cut it (once opencode has finished writing it). The result is kept as opencode made it when
// the compacted text would not be shorter, for timeouts and aborts, for commands already run
// through `tokenjuice wrap`, and on any error (fail open). Only the plugin itself is exported:
// opencode calls every export as a plugin.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const LAUNCHER = "__TOKENJUICE_LAUNCHER__";
const TIMEOUT_MS = 10000;
const MIN_SAVED_CHARS = 8;
const WRAPPED = /(^|[\s/\\])tokenjuice(\.exe|\.cmd|\.bat)?['"]?\s+(\S+\s+)*wrap(\s|$)/i;
const TRUNCATED = /^\.\.\.output truncated\.\.\.\n\nFull output saved to: (.*)\n\n/;

// The last line of a text, trailing blank lines and spaces aside.
function lastLine(text) {
  const t = text.replace(/\s+$/, "");
  return t.slice(t.lastIndexOf("\n") + 1);
}

// opencode appends a long output to its saved file through a write stream it does not wait
// for before the hook runs: the file is read once it ends with the line opencode showed last
// and has stopped growing for 150 ms (a file cut at a write boundary can end like a tail
// opencode took from a partial output too; seen in the end-to-end suite). Checked every
// 20 ms for up to 2 s; then the result stays as opencode made it.
async function readSaved(path, shownTail) {
  const want = lastLine(shownTail);
  let size = -1;
  let stableSince = 0;
  for (let i = 0; i < 100; i++) {
    let text;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return null;
    }
    if (text.length !== size) {
      size = text.length;
      stableSince = Date.now();
    } else if ((!want || lastLine(text) === want) && Date.now() - stableSince >= 150) {
      return text;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

function reduce(request) {
  return new Promise((resolve) => {
    const viaNode = /\.(c|m)?js$/i.test(LAUNCHER);
    const args = ["reduce-json", "--source", "opencode"];
    let child;
    try {
      child = spawn(viaNode ? "node" : LAUNCHER, viaNode ? [LAUNCHER, ...args] : args, {
        stdio: ["pipe", "pipe", "ignore"],
      });
    } catch {
      resolve(null);
      return;
    }
    const chunks = [];
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {}
    }, TIMEOUT_MS);
    child.stdout.on("data", (c) => chunks.push(c));
    child.on("error", () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) {
        resolve(null);
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        resolve(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(request));
  });
}

async function compact(input, output) {
  if (!input || input.tool !== "bash" || !output || typeof output.output !== "string") return;
  const command = input.args && input.args.command;
  if (typeof command !== "string" || WRAPPED.test(command)) return;
  const shown = output.output;
  const meta = output.metadata || {};
  if (shown.includes("<shell_metadata>") || typeof meta.exit !== "number") return; // timeout, abort
  let text = shown;
  let saved = "";
  const cut = TRUNCATED.exec(shown);
  if (cut) {
    saved = cut[1];
    const full = await readSaved(saved, shown.slice(cut[0].length));
    if (full === null) return;
    text = full;
  }
  if (!text.trim() || text === "(no output)") return;
  // opencode shows an output's last 2,000 lines or 51,200 bytes unless its config raised the
  // `tool_output` limits: when it showed more than that, nothing of the output is cut
  const showed = cut ? shown.slice(cut[0].length) : text;
  const raised = showed.split("\n").length > 2000 || Buffer.byteLength(showed, "utf8") > 51200;
  const result = await reduce({
    input: { toolName: "bash", command, combinedText: text, exitCode: meta.exit },
    options: { noOmit: raised },
  });
  let next = result && result.inlineText;
  if (typeof next !== "string") return;
  if (saved) next = `Full output saved to: ${saved}\n\n${next}`;
  if (next.length + MIN_SAVED_CHARS > shown.length) return;
  output.output = next;
}

export const TokenjuicePlugin = async () => ({
  "tool.execute.after": async (input, output) => {
    try {
      await compact(input, output);
    } catch {}
  },
});
