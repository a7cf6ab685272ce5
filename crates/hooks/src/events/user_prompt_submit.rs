//! UserPromptSubmit: the user sent a prompt. No matcher; can block the prompt.
use super::{DefaultValue, EventKind, EventSpec, FieldDefault, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::UserPromptSubmit,
    matcher_target: MatcherTarget::Ignored,
    exit2_blocks: true,
    exit2_feedback: false,
    plain_stdout_is_context: true,
    tool_event: false,
    fields: &[FieldDefault {
        name: "prompt",
        value: DefaultValue::Str(""),
    }],
    summary: "prompt submitted; can block it or add context",
};
