//! Stop: the agent wants to finish its turn. No matcher; exit 2 / `continue:false` keeps it
//! working with the reason as feedback.
use super::{DefaultValue, EventKind, EventSpec, FieldDefault, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::Stop,
    matcher_target: MatcherTarget::Ignored,
    exit2_blocks: true,
    exit2_feedback: false,
    plain_stdout_is_context: false,
    tool_event: false,
    fields: &[FieldDefault {
        name: "stop_hook_active",
        value: DefaultValue::Bool(false),
    }],
    summary: "agent finishes a turn; can send it back to work",
};
