//! SessionStart: the agent starts (or resumes) a session. Matcher tests `source`.
use super::{DefaultValue, EventKind, EventSpec, FieldDefault, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::SessionStart,
    matcher_target: MatcherTarget::Field("source"),
    exit2_blocks: false,
    exit2_feedback: false,
    plain_stdout_is_context: true,
    tool_event: false,
    fields: &[FieldDefault {
        name: "source",
        value: DefaultValue::Str("startup"),
    }],
    summary: "session starts; additionalContext is added to the model's context",
};
