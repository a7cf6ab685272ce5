//! TaskCompleted: a task is marked done. No matcher; exit 2 refuses the completion.
use super::{DefaultValue, EventKind, EventSpec, FieldDefault, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::TaskCompleted,
    matcher_target: MatcherTarget::Ignored,
    exit2_blocks: true,
    exit2_feedback: false,
    plain_stdout_is_context: false,
    tool_event: false,
    fields: &[
        FieldDefault {
            name: "task_id",
            value: DefaultValue::Str(""),
        },
        FieldDefault {
            name: "task_subject",
            value: DefaultValue::Str(""),
        },
    ],
    summary: "task completed; can refuse the completion",
};
