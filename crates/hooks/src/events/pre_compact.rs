//! PreCompact: before the conversation is compacted. Matcher tests `trigger`
//! (`manual` or `auto`).
use super::{DefaultValue, EventKind, EventSpec, FieldDefault, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::PreCompact,
    matcher_target: MatcherTarget::Field("trigger"),
    exit2_blocks: false,
    exit2_feedback: false,
    plain_stdout_is_context: true,
    tool_event: false,
    fields: &[
        FieldDefault {
            name: "trigger",
            value: DefaultValue::Str("manual"),
        },
        FieldDefault {
            name: "custom_instructions",
            value: DefaultValue::Str(""),
        },
    ],
    summary: "before compaction; additionalContext guides the summary",
};
