//! Every host is a row of data: where its config lives, what shape it has, which event and
//! matcher we hook, how the hook answers. Code elsewhere reads these rows; only what is
//! truly different between hosts (an answer style, a file shape) is a variant.

use tokenjuice_core::budget::{CutShape, HostCut, Whole};
use tokenjuice_hooks::homes::{self, UserHome};
use tokenjuice_hooks::Host as Dialect;

/// How tokenjuice reaches the model's view of a command's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// A post-tool hook replaces the tool result with the compacted text.
    PostToolReplace,
    /// An extension/plugin file inside the host (pi, opencode).
    Extension,
    /// A marked block in an instruction file telling the model to use `tokenjuice wrap`.
    Guidance,
    /// Codex: `BASH_ENV` set for the agent's commands through its `shell_environment_policy`;
    /// bash runs the command unchanged and its output goes through `tokenjuice --codex-filter`.
    BashEnv,
    /// Droid: a SessionStart hook exports `BASH_ENV` (through the env file the host gives
    /// it); bash reads the script in the shell Droid runs each command under, and its output
    /// goes through `tokenjuice --droid-filter` (`droid_env`).
    SessionBashEnv,
    /// No mechanism changes only the output in this host's version: `install` refuses and
    /// says why (the row's `note`); `doctor` and `uninstall` still find an older entry.
    Unsupported,
    /// The host runs every shell line through a prefix command it lets the user set
    /// (Claude Code's `CLAUDE_CODE_SHELL_PREFIX`); tokenjuice is that prefix. The command stays
    /// in the host's own shell line, so permissions and shell state are the host's.
    ShellPrefix,
}

impl Mechanism {
    pub fn as_str(self) -> &'static str {
        match self {
            Mechanism::PostToolReplace => "post-tool replace",
            Mechanism::Extension => "extension",
            Mechanism::Guidance => "guidance",
            Mechanism::ShellPrefix => "shell prefix",
            Mechanism::Unsupported => "not supported",
            Mechanism::BashEnv => "BASH_ENV / ZDOTDIR",
            Mechanism::SessionBashEnv => "BASH_ENV from a SessionStart hook",
        }
    }
}

/// The directory a config file is relative to.
#[derive(Clone, Copy, Debug)]
pub enum Anchor {
    /// The host's user configuration directory: a row of `tokenjuice_hooks::homes`, the one
    /// table the hooks toolkit reads host settings by, too.
    User(&'static UserHome),
    /// The first of `env` that is set, else `$XDG_CONFIG_HOME/<sub>`, else `~/.config/<sub>`.
    XdgConfig {
        env: &'static [&'static str],
        sub: &'static str,
    },
    /// `<project>/<dir>`; the project is the first of `env` that is set, else
    /// `TOKENJUICE_PROJECT_DIR`, else the git root above the working directory, else it.
    Project {
        env: &'static [&'static str],
        dir: &'static str,
    },
}

/// Shape of a hook config file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Claude-style `{"hooks": {Event: [{"matcher", "hooks": [handler…]}]}}`; `root: None`
    /// when the events sit at the top level (Devin).
    Groups { root: Option<&'static str> },
    /// `{"version": 1, "hooks": {event: [handler-with-matcher…]}}` (Cursor, Copilot).
    Flat,
    /// A whole file tokenjuice owns (pi extension, opencode plugin).
    OwnedFile { template: &'static str },
}

/// What a host's hook entrypoint answers. Where tokenjuice no longer installs a hook (it
/// refuses the host, or reaches it another way), an older install's entry still gets an
/// answer: `None`, the host's "no change".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Copilot CLI post-tool: `modifiedResult` with the compacted `textResultForLlm`.
    CopilotResult,
    /// Gemini CLI AfterTool: `tailToolCallRequest` = `read_file` of the compacted result.
    GeminiTail,
    /// `{}`, no change (extensions have no hook; a retired entry changes nothing).
    None,
    /// Never changes the call: a background command is marked so that the shell prefix
    /// passes its output through as it streams (Claude Code); the answer is always `{}`.
    MarkStreaming,
}

/// A host reached through a hook or an extension file.
#[derive(Debug)]
pub struct HookSpec {
    pub id: &'static str,
    pub display: &'static str,
    pub aliases: &'static [&'static str],
    pub mechanism: Mechanism,
    pub anchor: Anchor,
    pub file: &'static str,
    pub shape: Shape,
    /// The event our entry sits under.
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    /// Key of the command in a handler (`command`; Copilot uses `bash`).
    pub command_key: &'static str,
    pub status_message: Option<&'static str>,
    /// `(key, value)` of the timeout written into the handler.
    pub timeout: Option<(&'static str, u64)>,
    /// Handlers carry `name`/`description` (Gemini, Qwen).
    pub named: bool,
    /// Tool names of the host's shell tool, as sent in the payload.
    pub tools: &'static [&'static str],
    pub answer: Answer,
    /// The hooks-engine dialect used to run the installed hook in `doctor`.
    pub dialect: Dialect,
    /// A fact the user must know (permission posture, trust step); printed by doctor.
    pub note: Option<&'static str>,
    /// The host's program and the versions (`major.minor`) in which tokenjuice's end-to-end
    /// suite proved the mechanism in the real agent; doctor warns on any other version.
    pub proven: Option<(&'static str, &'static [&'static str])>,
    /// The host's own cut of a shell result: what it shows of an output over it, which
    /// tokenjuice's text is made from, and (where the host cuts tokenjuice's text too) the
    /// size that text stays under. pi and opencode cut before their hook replaces the result
    /// ([`CutShape::Tail`]); [`HostCut::NONE`] where the cut is modelled apart (Copilot CLI).
    pub cut: HostCut,
    /// Where `cut` is [`HostCut::NONE`]: the sizes up to which the host shows an output
    /// whole, a success's and a failure's (Copilot CLI's ~20 KB preview threshold). Nothing
    /// it would have shown is cut; see [`HookSpec::shows_whole`].
    pub whole: Option<Whole>,
    /// The host prints the exit status itself next to the output (Claude's `Exit code N`),
    /// so tokenjuice prints none.
    pub prints_exit: bool,
    /// Install writes a hook entry. False for a shell-prefix host that needs none (Claude
    /// Code: its output file lets the prefix stream and then replace the output); install
    /// then removes an entry an older tokenjuice wrote, and doctor warns about one left.
    pub hook_entry: bool,
    /// The guidance target `install` suggests where this host is not supported.
    pub guidance: &'static str,
    /// The host reads its settings file with `//` and `/* */` comments allowed (Gemini CLI
    /// strips them before parsing, Droid parses JSONC, CodeBuddy reads them: each shown by
    /// the e2e suite with a commented user file): install, uninstall and doctor accept them
    /// too, and keep them where they are. Claude Code ignores such a file altogether.
    pub comments: bool,
}

impl HookSpec {
    /// The subcommand the host calls.
    /// The sizes up to which the host shows an output whole (success, failure), if known.
    pub fn shows_whole(&self) -> Option<Whole> {
        self.cut.shows_whole().or(self.whole)
    }

    pub fn entry_subcommand(&self) -> String {
        match self.mechanism {
            Mechanism::PostToolReplace => format!("{}-post-tool-use", self.id),
            Mechanism::SessionBashEnv => format!("{}-session-start", self.id),
            _ => format!("{}-pre-tool-use", self.id),
        }
    }
}

/// Over 30,000 characters the host shows a ~2 KB preview and a file path (Claude Code,
/// CodeBuddy); the prefix moves the 30,000 where the host's settings do.
const PREVIEW_AT_30K: HostCut = HostCut {
    cut_chars: 30_000,
    over_cut_keeps: 2_000,
    fail_cut_chars: 30_000,
    fail_over_cut_keeps: 2_000,
    max_lines: usize::MAX,
    shape: CutShape::Start,
    fail_shape: CutShape::Start,
};

/// Claude Code: [`PREVIEW_AT_30K`] for successes; a failing command's output is kept up to
/// its first 30,000 characters (where `bashOutputMaxChars` puts the cut), and over 10,000
/// characters shown as its first and last 5,000 of those (measured in 2.1.330: `... [8811
/// characters truncated] ...` between them; of a 31,420-character failure the model got
/// characters 0–5,000 and 25,000–30,000, and nothing after).
const CLAUDE_CUT: HostCut = HostCut {
    fail_cut_chars: 10_000,
    fail_over_cut_keeps: 10_000,
    fail_shape: CutShape::Ends {
        head: 5_000,
        tail: 5_000,
        capped: true,
    },
    ..PREVIEW_AT_30K
};

/// What Codex 0.169 shows of a result over its limit (bytes, used as characters: never fewer).
const CODEX_ENDS: CutShape = CutShape::Ends {
    head: 20_000,
    tail: 20_000,
    capped: false,
};

/// What Gemini CLI 0.61 shows of a result over 40,000 characters.
const GEMINI_ENDS: CutShape = CutShape::Ends {
    head: 8_000,
    tail: 32_000,
    capped: false,
};

const STATUS: Option<&str> = Some("wrapping bash through tokenjuice for compaction");

/// The `statusMessage` of the old PostToolUse prototypes; entries carrying it are ours.
pub const LEGACY_STATUS: &str = "compacting bash output with tokenjuice";

pub static HOOK_HOSTS: &[HookSpec] = &[
    HookSpec {
        id: "codebuddy",
        display: "CodeBuddy",
        aliases: &["code-buddy"],
        mechanism: Mechanism::ShellPrefix,
        anchor: Anchor::User(&homes::CODEBUDDY),
        file: "settings.json",
        shape: Shape::Groups {
            root: Some("hooks"),
        },
        event: "PreToolUse",
        matcher: Some("Bash"),
        command_key: "command",
        status_message: Some("tokenjuice: marking background commands so their output streams"),
        timeout: Some(("timeout", 10)),
        named: false,
        tools: &["Bash"],
        answer: Answer::MarkStreaming,
        dialect: Dialect::CodeBuddy,
        note: Some("the command runs in CodeBuddy's own shell line through CODEBUDDY_CODE_SHELL_PREFIX (settings env): permission rules, PATH and the shell snapshot are CodeBuddy's; no hook runs. A background command (run_in_background) writes to CodeBuddy's task files (seen in 2.117 over ACP, the mode in which the CLI runs them), which the prefix sees and leaves alone, so its output streams uncompacted as without tokenjuice. A foreground command still running a little before its timeout (the call's own, read from CodeBuddy's session transcript, else BASH_DEFAULT_TIMEOUT_MS) streams from then on, uncompacted, so the output CodeBuddy shows when it moves the command to the background is there. when tokenjuice reduces an output, stdout and stderr appear together under Stdout (an output given back unchanged keeps them apart)"),
        proven: Some(("codebuddy", &["2.117"])),
        // CodeBuddy Code 2.117: combined output over 30,000 characters (BASH_MAX_OUTPUT_LENGTH)
        // becomes a 2,048-character preview and a file path, failures alike.
        cut: PREVIEW_AT_30K,
        whole: None,
        prints_exit: true,
        // 2.117 gives a background command files (bg-tasks/<id>.stdout.log, .stderr.log) as
        // stdout and stderr, a foreground one sockets: the prefix tells them apart itself
        hook_entry: false,
        guidance: "agents-md",
        comments: true,
    },
    HookSpec {
        id: "cursor",
        display: "Cursor",
        aliases: &[],
        mechanism: Mechanism::Unsupported,
        anchor: Anchor::User(&homes::CURSOR),
        file: "hooks.json",
        shape: Shape::Flat,
        event: "preToolUse",
        matcher: Some("Shell"),
        command_key: "command",
        status_message: None,
        timeout: Some(("timeout", 10)),
        named: false,
        tools: &["Shell"],
        answer: Answer::None,
        dialect: Dialect::Cursor,
        note: Some("Cursor applies a hook's rewrite (updated_input) only together with a permission decision, allow or deny (rtk-ai/rtk#3213), so rewriting would answer allow for the user and could spare a command Cursor's own approval prompt; no hook replaces a result and there is no shell prefix"),
        proven: None,
        cut: HostCut::NONE,
        whole: None,
        prints_exit: false,
        hook_entry: true,
        guidance: "cursor-rules",
        comments: false,
    },
    HookSpec {
        id: "claude-code",
        display: "Claude Code",
        aliases: &["claude", "claudecode"],
        mechanism: Mechanism::ShellPrefix,
        anchor: Anchor::User(&homes::CLAUDE),
        file: "settings.json",
        shape: Shape::Groups {
            root: Some("hooks"),
        },
        event: "PreToolUse",
        matcher: Some("Bash"),
        command_key: "command",
        status_message: Some("tokenjuice: marking background commands so their output streams"),
        timeout: Some(("timeout", 10)),
        named: false,
        tools: &["Bash"],
        answer: Answer::MarkStreaming,
        dialect: Dialect::Claude,
        note: Some("the command runs in Claude Code's own shell line through CLAUDE_CODE_SHELL_PREFIX (settings env): permission rules, cd, PATH and the shell snapshot are Claude's. The output streams into Claude's task file as it comes (a background command's too) and is replaced by the compacted text when the command ends; no hook runs"),
        proven: Some(("claude", &["2.1"])),
        // Claude Code 2.1: a Bash result over 30,000 characters (bashOutputMaxChars) becomes a
        // 2 KB preview and a file path; a failing command's over 10,000 characters is cut in
        // the middle to 10,000 (`... [N characters truncated] ...`; measured in 2.1.330: 8,611
        // characters kept whole, 17,200 and 30,000 cut to 10,039 with the exit line).
        cut: CLAUDE_CUT,
        whole: None,
        prints_exit: true,
        hook_entry: false,
        guidance: "agents-md",
        comments: false,
    },
    HookSpec {
        id: "codex",
        display: "Codex CLI",
        aliases: &["codex-cli"],
        mechanism: Mechanism::BashEnv,
        anchor: Anchor::User(&homes::CODEX),
        file: "hooks.json",
        shape: Shape::Groups {
            root: Some("hooks"),
        },
        event: "PreToolUse",
        matcher: Some("Bash"),
        command_key: "command",
        status_message: STATUS,
        timeout: Some(("timeout", 30)),
        named: false,
        tools: &["Bash"],
        answer: Answer::None,
        dialect: Dialect::Codex,
        note: Some("Codex runs each command with your login shell, as `bash -c` or `zsh -c`; tokenjuice sets BASH_ENV and ZDOTDIR for those commands (shell_environment_policy.set in config.toml) to scripts that run the command unchanged in the same shell (zsh reading your own start-up files) and compact its output. Codex decides approval, sandbox and exec-policy rules on the command as the model wrote it. Output is held until the command ends or pauses for a second (then shown folded, with nothing cut, and what follows is held again); shells other than bash and zsh, and tty sessions, are left alone"),
        proven: Some(("codex", &["0.169", "0.171"])),
        // Codex 0.169 shows a result of up to 10,000 of its tokens (a token is 4 bytes: 40,000
        // bytes) whole; a longer one as its first and last 20,000 bytes with `…N tokens
        // truncated…` between them (measured: `seq 1 20000` showed 1–4221 and 16668–20000).
        // Whole is taken as up to 30,000 characters, with room. Codex prints `Exit code: N`
        // itself.
        cut: HostCut {
            cut_chars: 30_000,
            over_cut_keeps: 40_000,
            fail_cut_chars: 30_000,
            fail_over_cut_keeps: 40_000,
            max_lines: usize::MAX,
            shape: CODEX_ENDS,
            fail_shape: CODEX_ENDS,
        },
        whole: None,
        prints_exit: true,
        hook_entry: true,
        guidance: "agents-md",
        comments: false,
    },
    HookSpec {
        id: "pi",
        display: "pi",
        aliases: &["pi-coding-agent"],
        mechanism: Mechanism::Extension,
        anchor: Anchor::User(&homes::PI),
        file: "extensions/tokenjuice.ts",
        shape: Shape::OwnedFile {
            template: include_str!("templates/pi-extension.ts"),
        },
        event: "tool_result",
        matcher: None,
        command_key: "command",
        status_message: None,
        timeout: None,
        named: false,
        tools: &["bash"],
        answer: Answer::None,
        dialect: Dialect::Claude,
        note: Some("pi loads extensions at startup: run /reload (or restart pi) after install"),
        proven: Some(("pi", &["0.73"])),
        cut: tokenjuice_core::budget::TAIL_2000,
        whole: None,
        prints_exit: false,
        hook_entry: true,
        guidance: "agents-md",
        comments: false,
    },
    HookSpec {
        id: "gemini-cli",
        display: "Gemini CLI",
        aliases: &["gemini"],
        mechanism: Mechanism::PostToolReplace,
        anchor: Anchor::User(&homes::GEMINI),
        file: "settings.json",
        shape: Shape::Groups {
            root: Some("hooks"),
        },
        event: "AfterTool",
        matcher: Some("run_shell_command"),
        command_key: "command",
        status_message: None,
        timeout: Some(("timeout", 10000)),
        named: true,
        tools: &["run_shell_command"],
        answer: Answer::GeminiTail,
        dialect: Dialect::Gemini,
        note: Some("an AfterTool hook hands the model the compacted result through Gemini's documented tailToolCallRequest (a read_file of the compacted text, under the shell call's own name and id); the command and its arguments are untouched, so policy rules decide on the command as written. The interactive transcript shows a ReadFile line where the shell entry was; the hook leaves the result alone when read_file is excluded, not in tools.core, needs confirmation, is named in a policy file, or another BeforeTool hook may see it. By Gemini 0.61's code, it runs hooks only in a folder it trusts: in one the user left untrusted, nothing is compacted. Time: Gemini starts each hook as a new process (`bash -c`, copied from its own ~260 MB process), so every shell command takes ~6–7.5 ms longer in Gemini 0.61 (measured; tokenjuice's own part ~1.5 ms), over tokenjuice's 5 ms budget; a command hook is the only way Gemini 0.61 offers"),
        proven: Some(("gemini", &["0.61"])),
        // Gemini 0.61: over 40,000 characters it keeps the first 8,000 and last 32,000
        // (`Output too large. Showing first 8,000 and last 32,000 characters.`; its AfterTool
        // hook gets the whole output); `read_file`, which carries the compacted text to the
        // model, reads at most 2,000 lines. Its envelope has `Exit Code: N`.
        cut: HostCut {
            cut_chars: 40_000,
            over_cut_keeps: 40_000,
            fail_cut_chars: 40_000,
            fail_over_cut_keeps: 40_000,
            max_lines: 2_000,
            shape: GEMINI_ENDS,
            fail_shape: GEMINI_ENDS,
        },
        whole: None,
        prints_exit: true,
        hook_entry: true,
        guidance: "agents-md",
        comments: true,
    },
    HookSpec {
        id: "qwen-code",
        display: "Qwen Code",
        aliases: &["qwen"],
        mechanism: Mechanism::Unsupported,
        anchor: Anchor::User(&homes::QWEN),
        file: "settings.json",
        shape: Shape::Groups {
            root: Some("hooks"),
        },
        event: "PreToolUse",
        matcher: Some("^run_shell_command$"),
        command_key: "command",
        status_message: STATUS,
        timeout: Some(("timeout", 10000)),
        named: true,
        tools: &["run_shell_command"],
        answer: Answer::None,
        dialect: Dialect::Claude,
        note: Some("Qwen Code 0.24 has no way to change only a tool's result: PreToolUse rewrites are ignored (updatedInput is read only from PermissionRequest hooks); a PostToolUse hook replaces a result only by stopping the tool (`continue: false` with the text as `stopReason`), which Qwen records as a tool that was not run (an error, with a warning that says so) and which a failing command ignores (only PostToolUseFailure fires for it); there is no shell-prefix setting, and Codex's BASH_ENV route is closed too (Qwen refuses BASH_ENV from its .env files and settings `env`, and its TUI runs commands in a terminal)"),
        proven: None,
        cut: HostCut::NONE,
        whole: None,
        prints_exit: false,
        hook_entry: true,
        guidance: "agents-md",
        comments: false,
    },
    HookSpec {
        id: "copilot-cli",
        display: "GitHub Copilot CLI",
        aliases: &["copilot"],
        mechanism: Mechanism::PostToolReplace,
        anchor: Anchor::User(&homes::COPILOT),
        file: "hooks/tokenjuice-cli.json",
        shape: Shape::Flat,
        event: "postToolUse",
        matcher: None,
        command_key: "bash",
        status_message: None,
        timeout: Some(("timeoutSec", 10)),
        named: false,
        tools: &["bash", "shell"],
        answer: Answer::CopilotResult,
        dialect: Dialect::Claude,
        note: None,
        proven: Some(("copilot", &["1.0"])),
        cut: HostCut::NONE,
        whole: Some(Whole::chars(20_000, 20_000)),
        prints_exit: false,
        hook_entry: true,
        guidance: "agents-md",
        comments: false,
    },
    HookSpec {
        id: "vscode-copilot",
        display: "VS Code Copilot agent",
        aliases: &["vscode"],
        mechanism: Mechanism::Unsupported,
        anchor: Anchor::User(&homes::VSCODE_COPILOT),
        file: "hooks/tokenjuice-vscode.json",
        shape: Shape::Flat,
        event: "PreToolUse",
        matcher: Some("runTerminalCommand|run_in_terminal"),
        command_key: "command",
        status_message: None,
        timeout: Some(("timeout", 10)),
        named: false,
        tools: &["runTerminalCommand", "run_in_terminal"],
        answer: Answer::None,
        dialect: Dialect::Claude,
        note: Some("VS Code applies a PreToolUse hook's updatedInput before its terminal auto-approve rules judge the command, so they would judge the rewritten one: the user's allow entries stop matching and an entry that requires approval for `rm` no longer matches it (a broad allow entry then approves it); no hook replaces a result (PostToolUse only appends context) and there is no shell-prefix setting. VS Code's own chat.tools.compressOutput.enabled compresses terminal output for the model only"),
        proven: None,
        cut: HostCut::NONE,
        whole: None,
        prints_exit: false,
        hook_entry: true,
        guidance: "agents-md",
        comments: false,
    },
    HookSpec {
        id: "droid",
        display: "Factory Droid",
        aliases: &["factory"],
        mechanism: Mechanism::SessionBashEnv,
        anchor: Anchor::User(&homes::DROID),
        file: "settings.json",
        shape: Shape::Groups {
            root: Some("hooks"),
        },
        event: "SessionStart",
        matcher: None,
        command_key: "command",
        status_message: None,
        timeout: Some(("timeout", 10)),
        named: false,
        tools: &[],
        answer: Answer::None,
        dialect: Dialect::Claude,
        note: Some("Droid decides a command's risk and permission on the command as the model wrote it; a SessionStart hook points BASH_ENV at a script that, only in the shell Droid runs each command under, sends the output through tokenjuice. New sessions only; fireAndForget commands and bash older than 5 are left alone"),
        proven: Some(("droid", &["0.225"])),
        // Droid 0.225 shows an output of up to 12,000 characters whole; a longer one becomes
        // its summary (`CutShape::DroidSummary`: keyword lines with 10 lines around each and
        // the first and last 30 lines, after a cut to the first and last 8 KiB past 16 KiB;
        // its bundle has the rule, and the e2e suite shows it: a 19 KB failing output kept
        // 69 plain lines and 170 error lines), with a path to the saved output past 16 KB.
        // It prints `[Process exited with code N]`.
        cut: tokenjuice_core::budget::DROID_SUMMARY,
        whole: None,
        prints_exit: true,
        hook_entry: true,
        guidance: "agents-md",
        comments: true,
    },
    HookSpec {
        id: "devin",
        display: "Devin (local)",
        aliases: &[],
        mechanism: Mechanism::Unsupported,
        anchor: Anchor::Project {
            env: &["DEVIN_PROJECT_DIR"],
            dir: ".devin",
        },
        file: "hooks.v1.json",
        shape: Shape::Groups { root: None },
        event: "PreToolUse",
        matcher: Some("exec"),
        command_key: "command",
        status_message: None,
        timeout: Some(("timeout", 10)),
        named: false,
        tools: &["exec"],
        answer: Answer::None,
        dialect: Dialect::Claude,
        note: Some("Devin documents its hooks as compatible with Claude Code's, where permission rules judge the input a PreToolUse hook returns, so a rewrite would change what the user's rules match; nothing public says otherwise, no documented hook replaces a result (PostToolUse is for logging and follow-up) and there is no shell-prefix setting"),
        proven: None,
        cut: HostCut::NONE,
        whole: None,
        prints_exit: false,
        hook_entry: true,
        guidance: "agents-md",
        comments: false,
    },
    HookSpec {
        id: "opencode",
        display: "opencode",
        aliases: &[],
        mechanism: Mechanism::Extension,
        anchor: Anchor::XdgConfig {
            env: &["OPENCODE_CONFIG_DIR"],
            sub: "opencode",
        },
        file: "plugins/tokenjuice.js",
        shape: Shape::OwnedFile {
            template: include_str!("templates/opencode-plugin.js"),
        },
        event: "tool.execute.before",
        matcher: None,
        command_key: "command",
        status_message: None,
        timeout: None,
        named: false,
        tools: &["bash"],
        answer: Answer::None,
        dialect: Dialect::Claude,
        note: Some("opencode loads plugins at startup: restart it after install"),
        proven: Some(("opencode", &["1.18"])),
        cut: tokenjuice_core::budget::TAIL_2000,
        whole: None,
        prints_exit: false,
        hook_entry: true,
        guidance: "agents-md",
        comments: false,
    },
];

/// Where a guidance block goes and in what form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuidanceStyle {
    /// A block between HTML-comment markers inside a Markdown file the user may also edit.
    MarkdownBlock,
    /// A whole file tokenjuice owns, with a front-matter header (e.g. Cursor `.mdc` rules).
    OwnedFile { header: &'static str },
}

/// A guidance-only agent: one row each.
#[derive(Debug)]
pub struct GuidanceSpec {
    pub id: &'static str,
    pub display: &'static str,
    pub anchor: Anchor,
    pub file: &'static str,
    pub style: GuidanceStyle,
}

const P: Anchor = Anchor::Project { env: &[], dir: "" };

pub static GUIDANCE_HOSTS: &[GuidanceSpec] = &[
    GuidanceSpec { id: "agents-md", display: "AGENTS.md (Codex, Amp, Jules, opencode, …)", anchor: P, file: "AGENTS.md", style: GuidanceStyle::MarkdownBlock },
    GuidanceSpec { id: "claude-md", display: "CLAUDE.md", anchor: P, file: "CLAUDE.md", style: GuidanceStyle::MarkdownBlock },
    GuidanceSpec { id: "gemini-md", display: "GEMINI.md", anchor: P, file: "GEMINI.md", style: GuidanceStyle::MarkdownBlock },
    GuidanceSpec { id: "copilot-instructions", display: "GitHub Copilot repository instructions", anchor: P, file: ".github/copilot-instructions.md", style: GuidanceStyle::MarkdownBlock },
    GuidanceSpec { id: "cursor-rules", display: "Cursor project rules", anchor: P, file: ".cursor/rules/tokenjuice.mdc", style: GuidanceStyle::OwnedFile { header: "---\ndescription: Run noisy shell commands through tokenjuice\nalwaysApply: true\n---\n" } },
    GuidanceSpec { id: "windsurf", display: "Windsurf rules", anchor: P, file: ".windsurf/rules/tokenjuice.md", style: GuidanceStyle::OwnedFile { header: "---\ntrigger: always_on\n---\n" } },
    GuidanceSpec { id: "cline", display: "Cline rules", anchor: P, file: ".clinerules/tokenjuice.md", style: GuidanceStyle::OwnedFile { header: "" } },
    GuidanceSpec { id: "roo", display: "Roo Code rules", anchor: P, file: ".roo/rules/tokenjuice.md", style: GuidanceStyle::OwnedFile { header: "" } },
    GuidanceSpec { id: "kiro", display: "Kiro steering", anchor: P, file: ".kiro/steering/tokenjuice.md", style: GuidanceStyle::OwnedFile { header: "---\ninclusion: always\n---\n" } },
    GuidanceSpec { id: "continue", display: "Continue rules", anchor: P, file: ".continue/rules/tokenjuice.md", style: GuidanceStyle::OwnedFile { header: "" } },
    GuidanceSpec { id: "amazon-q", display: "Amazon Q Developer rules", anchor: P, file: ".amazonq/rules/tokenjuice.md", style: GuidanceStyle::OwnedFile { header: "" } },
    GuidanceSpec { id: "augment", display: "Augment rules", anchor: P, file: ".augment/rules/tokenjuice.md", style: GuidanceStyle::OwnedFile { header: "" } },
    GuidanceSpec { id: "junie", display: "JetBrains Junie guidelines", anchor: P, file: ".junie/guidelines.md", style: GuidanceStyle::MarkdownBlock },
    GuidanceSpec { id: "goose", display: "Goose hints", anchor: P, file: ".goosehints", style: GuidanceStyle::MarkdownBlock },
    GuidanceSpec { id: "zed", display: "Zed rules", anchor: P, file: ".rules", style: GuidanceStyle::MarkdownBlock },
    GuidanceSpec { id: "trae", display: "Trae project rules", anchor: P, file: ".trae/rules/project_rules.md", style: GuidanceStyle::MarkdownBlock },
    GuidanceSpec { id: "aider", display: "Aider conventions", anchor: P, file: "CONVENTIONS.md", style: GuidanceStyle::MarkdownBlock },
];

/// A host of any kind.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    Hook(&'static HookSpec),
    Guidance(&'static GuidanceSpec),
}

impl Target {
    pub fn id(&self) -> &'static str {
        match self {
            Target::Hook(h) => h.id,
            Target::Guidance(g) => g.id,
        }
    }
    pub fn mechanism(&self) -> Mechanism {
        match self {
            Target::Hook(h) => h.mechanism,
            Target::Guidance(_) => Mechanism::Guidance,
        }
    }
}

/// Every host, hooks first, in table order.
pub fn all() -> impl Iterator<Item = Target> {
    HOOK_HOSTS
        .iter()
        .map(Target::Hook)
        .chain(GUIDANCE_HOSTS.iter().map(Target::Guidance))
}

pub fn known_ids() -> String {
    all().map(|t| t.id()).collect::<Vec<_>>().join(", ")
}

/// Finds a host by id or alias (case-insensitive).
pub fn find(name: &str) -> crate::error::Result<Target> {
    let lower = name.to_ascii_lowercase();
    if let Some(h) = HOOK_HOSTS
        .iter()
        .find(|h| h.id == lower || h.aliases.contains(&lower.as_str()))
    {
        return Ok(Target::Hook(h));
    }
    if let Some(g) = GUIDANCE_HOSTS.iter().find(|g| g.id == lower) {
        return Ok(Target::Guidance(g));
    }
    Err(crate::error::HostsError::UnknownHost {
        name: name.to_string(),
        known: known_ids(),
    })
}

/// The hook host with this id (`claude-code`; aliases are not looked at).
pub fn by_id(id: &str) -> Option<&'static HookSpec> {
    HOOK_HOSTS.iter().find(|h| h.id == id)
}

/// A `<host>-pre-tool-use` / `<host>-post-tool-use` subcommand that an older tokenjuice
/// installed and this one no longer serves (e.g. `codex-post-tool-use`): the host id.
pub fn retired_entry_host(sub: &str) -> Option<&'static HookSpec> {
    let id = sub
        .strip_suffix("-pre-tool-use")
        .or_else(|| sub.strip_suffix("-post-tool-use"))?;
    by_id(id)
}

/// The hook host whose entry subcommand is `sub` (`codebuddy-pre-tool-use`).
pub fn by_entry_subcommand(sub: &str) -> Option<&'static HookSpec> {
    HOOK_HOSTS
        .iter()
        .find(|h| h.mechanism != Mechanism::Extension && h.entry_subcommand() == sub)
}

/// How a host puts its prefix in front of a line, and what its tool lines look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefixStyle {
    /// Claude Code: the prefix is split at its last ` -`; the part before is one quoted word.
    /// A Bash tool line ends in `eval <cmd> < /dev/null && pwd -P >| <cwd file>`.
    Claude,
    /// CodeBuddy: the prefix is shell text pasted in front of the single-quoted line, run by
    /// `$SHELL -c "shopt -u …; <prefix> '<line>'"`. A Bash tool line ends in `eval '<cmd>'`
    /// and runs with `CODEBUDDY_SESSION_ID` set (the API key helper runs without it).
    CodeBuddy,
}

/// A host that runs its shell lines through a prefix command it lets the user set
/// (`CLAUDE_CODE_SHELL_PREFIX`): tokenjuice is that prefix, and sees the command's output
/// while the command stays in the host's own shell line.
#[derive(Debug)]
pub struct PrefixSpec {
    pub id: &'static str,
    /// The host's setting, as an environment variable (also accepted in its settings `env`).
    pub prefix_env: &'static str,
    /// Where a prefix the user had before us is kept; tokenjuice still runs the line through it.
    pub next_env: &'static str,
    /// The host's variable naming the shell it uses.
    pub shell_env: &'static str,
    pub style: PrefixStyle,
}

impl PrefixSpec {
    /// The host's row in [`HOOK_HOSTS`] (its cut, exit line, config file).
    pub fn host(&self) -> &'static HookSpec {
        by_id(self.id).expect("every prefix host has a row in HOOK_HOSTS")
    }
}

pub static PREFIX_HOSTS: &[PrefixSpec] = &[
    PrefixSpec {
        id: "claude-code",
        prefix_env: "CLAUDE_CODE_SHELL_PREFIX",
        next_env: "TOKENJUICE_CLAUDE_CODE_NEXT_PREFIX",
        shell_env: "CLAUDE_CODE_SHELL",
        style: PrefixStyle::Claude,
    },
    PrefixSpec {
        id: "codebuddy",
        prefix_env: "CODEBUDDY_CODE_SHELL_PREFIX",
        next_env: "TOKENJUICE_CODEBUDDY_NEXT_PREFIX",
        shell_env: "CODEBUDDY_CODE_SHELL",
        style: PrefixStyle::CodeBuddy,
    },
];

/// The prefix host with this id.
pub fn prefix_host(id: &str) -> Option<&'static PrefixSpec> {
    PREFIX_HOSTS.iter().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokenjuice_hooks::dialects::Anchor as DialectAnchor;

    /// A host the hooks toolkit also emulates is described once: the installer's row and the
    /// toolkit's dialect name the same home table row, file, display name, hook event and
    /// shell tool.
    #[test]
    fn hosts_with_a_dialect_agree_with_it() {
        let mut checked = 0;
        for spec in HOOK_HOSTS {
            let Ok(host) = spec.id.parse::<Dialect>() else {
                continue;
            };
            assert_eq!(host, spec.dialect, "{}: the row's dialect", spec.id);
            let d = host.dialect();
            let Anchor::User(home) = spec.anchor else {
                panic!("{}: a user-scope host", spec.id)
            };
            let same_home = d.locations.iter().any(|l| {
                l.file == spec.file
                    && matches!(l.anchor, DialectAnchor::User(h) if std::ptr::eq(h, home))
            });
            assert!(
                same_home,
                "{}: the dialect reads {home:?}/{}",
                spec.id, spec.file
            );
            assert_eq!(d.display_name, spec.display, "{}", spec.id);
            assert!(
                d.events.iter().any(|e| e.name == spec.event),
                "{}: the dialect knows event {}",
                spec.id,
                spec.event
            );
            for tool in spec.tools {
                let known = d.tools.shell.contains(tool)
                    || d.tools.aliases.iter().any(|(name, aliases)| {
                        d.tools.shell.contains(name) && aliases.contains(tool)
                    });
                assert!(
                    known,
                    "{}: the dialect takes {tool} as its shell tool",
                    spec.id
                );
            }
            checked += 1;
        }
        assert_eq!(
            checked, 5,
            "claude-code, codebuddy, codex, cursor, gemini-cli"
        );
    }

    #[test]
    fn every_host_names_a_guidance_target_that_exists() {
        for spec in HOOK_HOSTS {
            assert!(
                GUIDANCE_HOSTS.iter().any(|g| g.id == spec.guidance),
                "{}: no guidance target {}",
                spec.id,
                spec.guidance
            );
        }
    }

    #[test]
    fn every_prefix_host_has_a_row_with_a_cut_and_exit_line() {
        for p in PREFIX_HOSTS {
            let h = p.host();
            assert_eq!(h.mechanism, Mechanism::ShellPrefix, "{}", p.id);
            assert!(h.prints_exit && h.cut.cut_chars < usize::MAX, "{}", p.id);
        }
    }
}
