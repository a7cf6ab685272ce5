//! PostToolUse: after a tool ran. Matcher tests the tool name. Exit 2 cannot undo the tool;
//! its stderr is fed back to the agent.
use super::{EventKind, EventSpec, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::PostToolUse,
    matcher_target: MatcherTarget::ToolName,
    exit2_blocks: false,
    exit2_feedback: true,
    plain_stdout_is_context: false,
    tool_event: true,
    fields: &[],
    summary: "after a tool ran; feedback and additionalContext",
};
