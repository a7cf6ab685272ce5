//! PermissionRequest: the agent is about to ask the user for a permission. Matcher tests
//! the tool name.
use super::{EventKind, EventSpec, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::PermissionRequest,
    matcher_target: MatcherTarget::ToolName,
    exit2_blocks: true,
    exit2_feedback: false,
    plain_stdout_is_context: false,
    tool_event: true,
    fields: &[],
    summary: "permission dialog; allow/deny on the user's behalf",
};
