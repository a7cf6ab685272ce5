//! PreToolUse: before a tool runs. Matcher tests the tool name; can allow, deny, ask and
//! rewrite the tool input.
use super::{EventKind, EventSpec, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::PreToolUse,
    matcher_target: MatcherTarget::ToolName,
    exit2_blocks: true,
    exit2_feedback: false,
    plain_stdout_is_context: false,
    tool_event: true,
    fields: &[],
    summary: "before a tool runs; allow/deny/ask and input rewrite",
};
