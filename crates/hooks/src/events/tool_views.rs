//! PreBash / PostBash / PreEdit / PostEdit: PreToolUse and PostToolUse restricted to the
//! dialect's shell tools or file-editing tools. Hosts fire the base event; the views exist
//! so an embedding agent can register "before any shell command" without knowing the
//! host's tool names.
use super::{EventKind, EventSpec, MatcherTarget, ToolClass};

const fn view(kind: EventKind, base: EventSpec, summary: &'static str) -> EventSpec {
    EventSpec {
        kind,
        matcher_target: MatcherTarget::ToolName,
        exit2_blocks: base.exit2_blocks,
        exit2_feedback: base.exit2_feedback,
        plain_stdout_is_context: base.plain_stdout_is_context,
        tool_event: true,
        fields: base.fields,
        summary,
    }
}

pub(super) const PRE_BASH: EventSpec = view(
    EventKind::PreBash,
    super::pre_tool_use::SPEC,
    "PreToolUse on shell tools",
);
pub(super) const POST_BASH: EventSpec = view(
    EventKind::PostBash,
    super::post_tool_use::SPEC,
    "PostToolUse on shell tools",
);
pub(super) const PRE_EDIT: EventSpec = view(
    EventKind::PreEdit,
    super::pre_tool_use::SPEC,
    "PreToolUse on file write/edit tools",
);
pub(super) const POST_EDIT: EventSpec = view(
    EventKind::PostEdit,
    super::post_tool_use::SPEC,
    "PostToolUse on file write/edit tools",
);

pub(super) fn view_of(kind: EventKind) -> Option<(EventKind, ToolClass)> {
    match kind {
        EventKind::PreBash => Some((EventKind::PreToolUse, ToolClass::Shell)),
        EventKind::PostBash => Some((EventKind::PostToolUse, ToolClass::Shell)),
        EventKind::PreEdit => Some((EventKind::PreToolUse, ToolClass::Edit)),
        EventKind::PostEdit => Some((EventKind::PostToolUse, ToolClass::Edit)),
        _ => None,
    }
}
