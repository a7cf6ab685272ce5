// tokenjuice-managed: pi extension written by `tokenjuice install pi`; `tokenjuice uninstall pi` removes it. Reinstalling rewrites this file: do not edit it.
//
// After pi runs a bash command, this replaces the tool result the model reads with
// tokenjuice's compacted text (through `tokenjuice reduce-json`). The original result is
// kept when the compacted text would not be shorter, when the command already ran through
// `tokenjuice wrap`, and on any error (fail open).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const LAUNCHER = "__TOKENJUICE_LAUNCHER__";
const TIMEOUT_MS = 10000;
const MIN_SAVED_CHARS = 8;
const EXIT_LINE = /\n*Command exited with code (\d+)\s*$/;
const TRUNCATION_NOTE = /\n*\[Showing [^\]]*Full output: ([^\]]*)\]\s*$/;
const WRAPPED = /(^|[\s/\\])tokenjuice(\.exe|\.cmd|\.bat)?['"]?\s+(\S+\s+)*wrap(\s|$)/i;

function reduce(request, signal) {
  return new Promise((resolve) => {
    const viaNode = /\.(c|m)?js$/i.test(LAUNCHER);
    let child;
    try {
      const args = ["reduce-json", "--source", "pi"];
      child = spawn(viaNode ? "node" : LAUNCHER, viaNode ? [LAUNCHER, ...args] : args, {
        stdio: ["pipe", "pipe", "ignore"],
      });
    } catch {
      resolve(null);
      return;
    }
    const chunks = [];
    const kill = () => {
      try {
        child.kill("SIGKILL");
      } catch {}
    };
    const timer = setTimeout(kill, TIMEOUT_MS);
    if (signal && typeof signal.addEventListener === "function") {
      signal.addEventListener("abort", kill, { once: true });
    }
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

async function compactBashResult(event, signal) {
  if (!event || event.toolName !== "bash") return undefined;
  const command = event.input && event.input.command;
  if (typeof command !== "string" || WRAPPED.test(command)) return undefined;
  const parts = Array.isArray(event.content) ? event.content : [];
  if (parts.length === 0 || parts.some((p) => !p || p.type !== "text")) return undefined;
  const shown = parts.map((p) => p.text || "").join("");
  let text = shown;
  let exitCode = 0;
  let status = "";
  const exit = EXIT_LINE.exec(text);
  if (exit) {
    exitCode = Number(exit[1]);
    status = `Command exited with code ${exit[1]}`;
    text = text.slice(0, exit.index);
  } else if (event.isError) {
    return undefined; // aborted or timed out: leave pi's message alone
  }
  // a cut output's file: in the result's details, or (a failing command's result is pi's
  // error message, without details) in pi's note at its end
  const note = TRUNCATION_NOTE.exec(text);
  let fullPath = event.details && event.details.fullOutputPath;
  if (typeof fullPath !== "string" && note) fullPath = note[1];
  // pi's note named the file with the whole output: so does the text that replaces it
  let saved = "";
  if (typeof fullPath === "string" && fullPath) {
    try {
      text = readFileSync(fullPath, "utf8");
      saved = `[Full output: ${fullPath}]`;
    } catch {
      text = text.replace(TRUNCATION_NOTE, "");
    }
  }
  if (!text.trim() || text === "(no output)") return undefined;
  // pi prints `Command exited with code N` itself: no `exit N` line of ours
  const result = await reduce(
    { input: { toolName: "bash", command, combinedText: text, exitCode }, options: { hostPrintsExit: true } },
    signal,
  );
  const inline = result && result.inlineText;
  if (typeof inline !== "string") return undefined;
  const body = saved ? `${inline.replace(/\n+$/, "")}\n\n${saved}` : inline;
  const replaced = status ? `${body.replace(/\n+$/, "")}\n\n${status}` : body;
  if (replaced.length + MIN_SAVED_CHARS > shown.length) return undefined;
  return { content: [{ type: "text", text: replaced }] };
}

export default function tokenjuice(pi) {
  pi.on("tool_result", async (event, ctx) => {
    try {
      return await compactBashResult(event, ctx && ctx.signal);
    } catch {
      return undefined;
    }
  });
}
