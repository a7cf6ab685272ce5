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

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Compaction {
    /// True when the text reflects the whole captured output (nothing lost to a capture cap).
    pub authoritative: bool,
    pub kinds: Vec<String>,
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
