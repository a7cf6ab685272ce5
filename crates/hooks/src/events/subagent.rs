//! SubagentStart / SubagentStop. Matcher tests `agent_type`; SubagentStop can keep the
//! subagent working like Stop.
use super::{DefaultValue, EventKind, EventSpec, FieldDefault, MatcherTarget};

pub(super) const START: EventSpec = EventSpec {
    kind: EventKind::SubagentStart,
    matcher_target: MatcherTarget::Field("agent_type"),
    exit2_blocks: false,
    exit2_feedback: false,
    plain_stdout_is_context: false,
    tool_event: false,
    fields: &[FieldDefault {
        name: "agent_type",
        value: DefaultValue::Str(""),
    }],
    summary: "subagent starts; additionalContext for the subagent",
};

pub(super) const STOP: EventSpec = EventSpec {
    kind: EventKind::SubagentStop,
    matcher_target: MatcherTarget::Field("agent_type"),
    exit2_blocks: true,
    exit2_feedback: false,
    plain_stdout_is_context: false,
    tool_event: false,
    fields: &[
        FieldDefault {
            name: "agent_type",
            value: DefaultValue::Str(""),
        },
        FieldDefault {
            name: "stop_hook_active",
            value: DefaultValue::Bool(false),
        },
    ],
    summary: "subagent finishes; can send it back to work",
};
