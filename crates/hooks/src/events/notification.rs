//! Notification: the agent shows the user a notification. Matcher tests `notification_type`.
use super::{DefaultValue, EventKind, EventSpec, FieldDefault, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::Notification,
    matcher_target: MatcherTarget::Field("notification_type"),
    exit2_blocks: false,
    exit2_feedback: false,
    plain_stdout_is_context: false,
    tool_event: false,
    fields: &[
        FieldDefault {
            name: "message",
            value: DefaultValue::Str(""),
        },
        FieldDefault {
            name: "notification_type",
            value: DefaultValue::Str(""),
        },
    ],
    summary: "notification shown; observe only",
};
