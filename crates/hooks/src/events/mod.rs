//! Canonical hook events.
//!
//! Each event lives in its own file and is described as data ([`EventSpec`]): what the
//! matcher is tested against, whether exit code 2 blocks, which payload fields a host adds,
//! and whether plain (non-JSON) stdout becomes context for the model. `PreBash`, `PostBash`,
//! `PreEdit` and `PostEdit` are *views*: `PreToolUse`/`PostToolUse` restricted to the
//! dialect's shell or file-editing tools.

mod config_change;
mod notification;
mod permission_request;
mod post_tool_use;
mod pre_compact;
mod pre_tool_use;
mod session_end;
mod session_start;
mod stop;
mod subagent;
mod task_completed;
mod tool_views;
mod user_prompt_submit;

use std::fmt;

/// What a matcher is compared with for an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatcherTarget {
    /// The tool name (`tool_name` in the payload).
    ToolName,
    /// A payload field such as `source` (SessionStart) or `trigger` (PreCompact).
    Field(&'static str),
    /// The event has no matcher: any `matcher` in the settings is ignored.
    Ignored,
}

/// A payload field that the host always sends for an event, with the value used when the
/// caller does not give one.
#[derive(Clone, Copy, Debug)]
pub struct FieldDefault {
    pub name: &'static str,
    pub value: DefaultValue,
}

/// Default value of a payload field.
#[derive(Clone, Copy, Debug)]
pub enum DefaultValue {
    Str(&'static str),
    Bool(bool),
}

impl DefaultValue {
    pub fn to_json(self) -> serde_json::Value {
        match self {
            DefaultValue::Str(s) => serde_json::Value::String(s.to_string()),
            DefaultValue::Bool(b) => serde_json::Value::Bool(b),
        }
    }
}

/// Which tools a view event is restricted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolClass {
    /// The dialect's shell tool(s).
    Shell,
    /// The dialect's file writing/editing tools.
    Edit,
}

/// Everything the engine needs to know about one canonical event.
#[derive(Clone, Copy, Debug)]
pub struct EventSpec {
    pub kind: EventKind,
    pub matcher_target: MatcherTarget,
    /// Exit code 2 blocks the operation (stderr becomes the reason given to the agent).
    pub exit2_blocks: bool,
    /// Exit code 2 is not a block, but stderr is fed back to the agent (PostToolUse).
    pub exit2_feedback: bool,
    /// Plain-text stdout on exit 0 is added to the model's context.
    pub plain_stdout_is_context: bool,
    /// The event carries `tool_name`/`tool_input`.
    pub tool_event: bool,
    /// Payload fields the host adds, with defaults.
    pub fields: &'static [FieldDefault],
    pub summary: &'static str,
}

macro_rules! events {
    ($($variant:ident),* $(,)?) => {
        /// The canonical events. Host spellings live in each dialect.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum EventKind { $($variant),* }

        impl EventKind {
            /// Every canonical event, in a stable order.
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant),*];

            /// Canonical (Claude-style PascalCase) name.
            pub fn name(self) -> &'static str {
                match self { $(EventKind::$variant => stringify!($variant)),* }
            }
        }
    };
}

events!(
    SessionStart,
    SessionEnd,
    UserPromptSubmit,
    PreToolUse,
    PostToolUse,
    Stop,
    PreCompact,
    Notification,
    SubagentStart,
    SubagentStop,
    PermissionRequest,
    TaskCompleted,
    ConfigChange,
    PreBash,
    PostBash,
    PreEdit,
    PostEdit,
);

impl EventKind {
    /// Parses a canonical name (exact spelling, e.g. `PreToolUse`).
    pub fn from_name(name: &str) -> Option<EventKind> {
        EventKind::ALL.iter().copied().find(|e| e.name() == name)
    }

    /// The event's data.
    pub fn spec(self) -> EventSpec {
        match self {
            EventKind::SessionStart => session_start::SPEC,
            EventKind::SessionEnd => session_end::SPEC,
            EventKind::UserPromptSubmit => user_prompt_submit::SPEC,
            EventKind::PreToolUse => pre_tool_use::SPEC,
            EventKind::PostToolUse => post_tool_use::SPEC,
            EventKind::Stop => stop::SPEC,
            EventKind::PreCompact => pre_compact::SPEC,
            EventKind::Notification => notification::SPEC,
            EventKind::SubagentStart => subagent::START,
            EventKind::SubagentStop => subagent::STOP,
            EventKind::PermissionRequest => permission_request::SPEC,
            EventKind::TaskCompleted => task_completed::SPEC,
            EventKind::ConfigChange => config_change::SPEC,
            EventKind::PreBash => tool_views::PRE_BASH,
            EventKind::PostBash => tool_views::POST_BASH,
            EventKind::PreEdit => tool_views::PRE_EDIT,
            EventKind::PostEdit => tool_views::POST_EDIT,
        }
    }

    /// For a view event, the underlying event and the tool class it is restricted to.
    pub fn view(self) -> Option<(EventKind, ToolClass)> {
        tool_views::view_of(self)
    }

    /// The event a host actually fires: the event itself, or the base of a view.
    pub fn base(self) -> EventKind {
        self.view().map(|(base, _)| base).unwrap_or(self)
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_has_a_spec_for_itself_and_a_round_trip_name() {
        assert_eq!(EventKind::ALL.len(), 17);
        for &e in EventKind::ALL {
            assert_eq!(e.spec().kind, e, "{e} spec kind");
            assert_eq!(EventKind::from_name(e.name()), Some(e));
        }
        assert_eq!(EventKind::from_name("pretooluse"), None);
    }

    #[test]
    fn seed_002_matcher_targets() {
        assert_eq!(
            EventKind::PreToolUse.spec().matcher_target,
            MatcherTarget::ToolName
        );
        assert_eq!(
            EventKind::PostToolUse.spec().matcher_target,
            MatcherTarget::ToolName
        );
        assert_eq!(
            EventKind::SessionStart.spec().matcher_target,
            MatcherTarget::Field("source")
        );
        assert_eq!(
            EventKind::SessionEnd.spec().matcher_target,
            MatcherTarget::Field("reason")
        );
        assert_eq!(
            EventKind::PreCompact.spec().matcher_target,
            MatcherTarget::Field("trigger")
        );
        assert_eq!(
            EventKind::UserPromptSubmit.spec().matcher_target,
            MatcherTarget::Ignored
        );
        assert_eq!(
            EventKind::Stop.spec().matcher_target,
            MatcherTarget::Ignored
        );
    }

    #[test]
    fn views_map_to_tool_events() {
        assert_eq!(
            EventKind::PreBash.view(),
            Some((EventKind::PreToolUse, ToolClass::Shell))
        );
        assert_eq!(
            EventKind::PostEdit.view(),
            Some((EventKind::PostToolUse, ToolClass::Edit))
        );
        assert_eq!(EventKind::Stop.view(), None);
        assert_eq!(EventKind::PreEdit.base(), EventKind::PreToolUse);
        assert_eq!(EventKind::Stop.base(), EventKind::Stop);
    }

    #[test]
    fn exit_two_blocks_only_where_seed_002_says() {
        assert!(EventKind::PreToolUse.spec().exit2_blocks);
        assert!(EventKind::Stop.spec().exit2_blocks);
        assert!(EventKind::UserPromptSubmit.spec().exit2_blocks);
        assert!(!EventKind::SessionStart.spec().exit2_blocks);
        assert!(!EventKind::PostToolUse.spec().exit2_blocks);
        assert!(EventKind::PostToolUse.spec().exit2_feedback);
    }
}
