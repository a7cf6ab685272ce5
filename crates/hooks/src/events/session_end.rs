//! SessionEnd: the session ends. Matcher tests `reason`.
use super::{DefaultValue, EventKind, EventSpec, FieldDefault, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::SessionEnd,
    matcher_target: MatcherTarget::Field("reason"),
    exit2_blocks: false,
    exit2_feedback: false,
    plain_stdout_is_context: false,
    tool_event: false,
    fields: &[FieldDefault {
        name: "reason",
        value: DefaultValue::Str("other"),
    }],
    summary: "session ends; cleanup only, cannot block",
};
