//! ConfigChange: a settings file changed during the session. Matcher tests `source`.
use super::{DefaultValue, EventKind, EventSpec, FieldDefault, MatcherTarget};

pub(super) const SPEC: EventSpec = EventSpec {
    kind: EventKind::ConfigChange,
    matcher_target: MatcherTarget::Field("source"),
    exit2_blocks: true,
    exit2_feedback: false,
    plain_stdout_is_context: false,
    tool_event: false,
    fields: &[
        FieldDefault {
            name: "source",
            value: DefaultValue::Str("project_settings"),
        },
        FieldDefault {
            name: "file_path",
            value: DefaultValue::Str(""),
        },
    ],
    summary: "settings changed; can refuse the change",
};
