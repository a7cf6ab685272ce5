//! The JSON result, field-compatible with the original tokenjuice's `CompactResult`.

use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CompactResult {
    pub inline_text: String,
    pub facts: serde_json::Map<String, serde_json::Value>,
    pub compaction: Compaction,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_ref: Option<RawRef>,
    pub stats: Stats,
    pub classification: Classification,
}

impl CompactResult {
    /// Takes `text`, made for a host that cuts the output itself, as the text
    /// ([`Kind::HostBudget`]).
    pub fn set_host_text(&mut self, text: String) {
        self.stats.reduced_chars = text.chars().count() as u64;
        self.stats.reduced_tokens = crate::tokens::estimate(&text);
        self.stats.ratio = if self.stats.raw_chars == 0 {
            1.0
        } else {
            self.stats.reduced_chars as f64 / self.stats.raw_chars as f64
        };
        self.compaction.kinds.push(Kind::HostBudget.into());
        self.inline_text = text;
    }

    /// Gives `raw`, the whole output, as the text ([`Kind::Passthrough`]): nothing smaller
    /// holds what the host would show of it.
    pub fn set_raw(&mut self, raw: &str) {
        self.inline_text = raw.to_string();
        self.stats.reduced_chars = self.stats.raw_chars;
        self.stats.reduced_tokens = self.stats.raw_tokens;
        self.stats.ratio = 1.0;
        self.compaction.kinds = vec![Kind::Passthrough.into()];
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Compaction {
    /// True when the text reflects the whole captured output (nothing lost to a capture cap).
    pub authoritative: bool,
    /// What was done, as [`Kind`] names (strings in the JSON shape, as in the original).
    pub kinds: Vec<String>,
}

impl Compaction {
    /// Whether `kind` is among the kinds.
    pub fn has(&self, kind: Kind) -> bool {
        has_kind(&self.kinds, kind)
    }

    /// The output was given as it came (raw, exact read, weak or never-longer passthrough,
    /// `--no-omit`).
    pub fn passed_through(&self) -> bool {
        [
            Kind::Passthrough,
            Kind::RawPassthrough,
            Kind::ExactReadPassthrough,
            Kind::NoOmitPassthrough,
        ]
        .into_iter()
        .any(|k| self.has(k))
    }
}

/// Whether `kinds` (names as in [`Compaction::kinds`]) holds `kind`.
pub fn has_kind(kinds: &[String], kind: Kind) -> bool {
    kinds.iter().any(|k| k == kind.as_str())
}

/// What a compaction did, one name per kind: the one place these names are spelled.
/// (`structured:<reducer>` names a structured reducer, see [`structured_kind`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Passed through because reducing would not save enough, or would be longer.
    Passthrough,
    /// A raw plan (`--raw`, a forced raw classifier): byte for byte.
    RawPassthrough,
    /// A file read (`cat`, `sed -n`, …): byte for byte.
    ExactReadPassthrough,
    /// `--no-omit`: nothing left out.
    NoOmitPassthrough,
    /// The rule's `matchOutput` message stands for the whole output.
    MatchOutputSummary,
    HeadTailOmission,
    SignalRetention,
    SimilarLineCollapse,
    NoiseFilter,
    LineClip,
    OverlongLineCut,
    /// Cut further to fit under a host's own output limit.
    HostBudget,
    /// Lines of binary data (not text) stood for by a note each run.
    BinaryData,
    /// Something inside tokenjuice failed: the raw output was given.
    FailOpen,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Passthrough => "passthrough",
            Kind::RawPassthrough => "raw-passthrough",
            Kind::ExactReadPassthrough => "exact-read-passthrough",
            Kind::NoOmitPassthrough => "no-omit-passthrough",
            Kind::MatchOutputSummary => "match-output-summary",
            Kind::HeadTailOmission => "head-tail-omission",
            Kind::SignalRetention => "signal-retention",
            Kind::SimilarLineCollapse => "similar-line-collapse",
            Kind::NoiseFilter => "noise-filter",
            Kind::LineClip => "line-clip",
            Kind::OverlongLineCut => "overlong-line-cut",
            Kind::HostBudget => "host-budget",
            Kind::BinaryData => "binary-data",
            Kind::FailOpen => "fail-open",
        }
    }
}

impl From<Kind> for String {
    fn from(k: Kind) -> String {
        k.as_str().to_string()
    }
}

/// The kind naming structured reducer `name`.
pub fn structured_kind(name: &str) -> String {
    format!("structured:{name}")
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Unicode scalar values of the raw output.
    pub raw_chars: u64,
    pub reduced_chars: u64,
    /// reducedChars / rawChars (1 when raw is empty or when passed through).
    pub ratio: f64,
    pub raw_tokens: u64,
    pub reduced_tokens: u64,
    /// How tokens are counted: `estimate-o200k`.
    pub token_method: &'static str,
    pub raw_bytes: u64,
    pub raw_lines: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Classification {
    pub family: String,
    pub confidence: f64,
    pub matched_reducer: String,
    pub matched_via: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    pub normalized_command: String,
    pub normalized_argv: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell_body: Option<String>,
    pub matched_reducer: String,
    pub family: String,
    /// Which layer the rule came from: builtin, user or project.
    pub rule_layer: String,
    /// Why this rule won.
    pub reason: String,
    pub score: f64,
    /// Runners-up with their scores.
    pub candidates: Vec<TraceCandidate>,
    pub compound: bool,
    pub exact_read: bool,
    /// How the output was produced: reduced, passthrough and why, raw.
    pub decision: String,
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_reducer: Option<String>,
    pub lines: TraceLines,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TraceCandidate {
    pub id: String,
    pub score: f64,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TraceLines {
    pub raw: u64,
    pub shown: u64,
    pub omitted: u64,
    pub filtered: u64,
    pub folded: u64,
    pub kept_from_middle: u64,
    pub error_lines: u64,
    pub warning_lines: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawRef {
    pub id: String,
    pub storage: String,
    pub path: String,
}

#[cfg(test)]
mod kind_tests {
    use super::*;

    #[test]
    fn kind_names_are_unique_and_stable() {
        let all = [
            Kind::Passthrough,
            Kind::RawPassthrough,
            Kind::ExactReadPassthrough,
            Kind::NoOmitPassthrough,
            Kind::MatchOutputSummary,
            Kind::HeadTailOmission,
            Kind::SignalRetention,
            Kind::SimilarLineCollapse,
            Kind::NoiseFilter,
            Kind::LineClip,
            Kind::OverlongLineCut,
            Kind::HostBudget,
            Kind::BinaryData,
            Kind::FailOpen,
        ];
        let names: std::collections::HashSet<&str> = all.iter().map(|k| k.as_str()).collect();
        assert_eq!(names.len(), all.len());
        // the JSON names the original tokenjuice's adapters read
        assert_eq!(Kind::RawPassthrough.as_str(), "raw-passthrough");
        assert_eq!(Kind::HeadTailOmission.as_str(), "head-tail-omission");
        let c = Compaction {
            authoritative: true,
            kinds: vec![
                structured_kind("git-status"),
                Kind::NoOmitPassthrough.into(),
            ],
        };
        assert!(c.passed_through() && c.has(Kind::NoOmitPassthrough) && !c.has(Kind::FailOpen));
    }
}
