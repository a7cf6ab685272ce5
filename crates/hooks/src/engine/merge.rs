//! The merge of several hooks' effects into one outcome: a pure function of the effects
//! **in configuration order**. Finish order never enters it, so parallel hooks give the same
//! result every time.
//!
//! Rules:
//! - decision: `deny` > `ask` > `allow` > none. `reason` is the reason of the first hook
//!   (configuration order) that gave the winning decision.
//! - `continue: false` from any hook wins; `stopReason` is the first given by such a hook.
//! - `additionalContext`: every hook's contexts, in configuration order.
//! - `systemMessage`: all messages, in configuration order, joined by newlines.
//! - `suppressOutput`: true when any hook asks for it.
//! - input rewrites: each rewrite is turned into a change set against the **original**
//!   input (for a replace-style rewrite: keys whose value differs, keys added, keys
//!   removed; for a patch-style rewrite: every key it sets). Change sets are applied in
//!   configuration order, so two hooks touching different keys both take effect, and when
//!   two hooks set the same key to different values the later one in configuration order
//!   wins and a warning names both. A rewrite from a hook that itself denies is dropped;
//!   where the host requires it (CodeBuddy, Codex) only rewrites from hooks that say
//!   `allow` count. No rewrite is returned when the final outcome blocks.

use serde_json::{Map, Value};

use super::output_parser::{Decision, HookEffect};
use crate::dialects::{CompetingRewrites, RewriteSpec, RewriteStyle};

/// One hook's effect with a label for messages (its command, usually).
#[derive(Clone, Debug, PartialEq)]
pub struct MergeItem {
    pub label: String,
    pub effect: HookEffect,
}

/// The merged result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Merged {
    pub decision: Option<Decision>,
    pub reason: Option<String>,
    pub continue_: bool,
    pub stop_reason: Option<String>,
    pub system_message: Option<String>,
    pub additional_context: Vec<String>,
    pub updated_input: Option<Map<String, Value>>,
    pub suppress_output: bool,
    pub feedback: Vec<String>,
    pub warnings: Vec<String>,
}

impl Merged {
    /// The operation must not go ahead.
    pub fn blocked(&self) -> bool {
        self.decision == Some(Decision::Deny) || !self.continue_
    }
}

/// Merges effects given in configuration order.
pub fn merge(
    items: &[MergeItem],
    original_input: Option<&Map<String, Value>>,
    rewrite_requires_allow: bool,
) -> Merged {
    let mut m = Merged {
        continue_: true,
        ..Merged::default()
    };
    let mut messages = Vec::new();
    for item in items {
        let e = &item.effect;
        if let Some(d) = e.decision {
            if m.decision.is_none_or(|cur| d > cur) {
                m.decision = Some(d);
                m.reason = e.reason.clone();
            }
        }
        if e.continue_ == Some(false) {
            // The first stopping hook that gives a reason provides it.
            if m.stop_reason.is_none() {
                m.stop_reason = e.stop_reason.clone();
            }
            m.continue_ = false;
        }
        m.additional_context
            .extend(e.additional_context.iter().cloned());
        if let Some(s) = &e.system_message {
            messages.push(s.clone());
        }
        m.suppress_output |= e.suppress_output;
        if let Some(f) = &e.feedback {
            m.feedback.push(f.clone());
        }
        for w in &e.warnings {
            m.warnings.push(format!("{}: {w}", item.label));
        }
    }
    if !messages.is_empty() {
        m.system_message = Some(messages.join("\n"));
    }
    if !m.blocked() {
        m.updated_input = merge_rewrites(
            items,
            original_input,
            rewrite_requires_allow,
            &mut m.warnings,
        );
    }
    m
}

/// Merges results as they come back from parallel hooks: `(configuration index, item)` in
/// completion order. They are put back into configuration order first; this is the entry
/// point the dispatcher uses.
pub fn merge_finished(
    mut finished: Vec<(usize, MergeItem)>,
    original_input: Option<&Map<String, Value>>,
    rewrite_requires_allow: bool,
) -> Merged {
    finished.sort_by_key(|(index, _)| *index);
    let items: Vec<MergeItem> = finished.into_iter().map(|(_, item)| item).collect();
    merge(&items, original_input, rewrite_requires_allow)
}

/// As [`merge_finished`], for hosts whose competing rewrites resolve by finish order:
/// `finished` must be in completion order. With [`CompetingRewrites::LastToFinish`] the
/// rewrite of the hook that finished last (among those whose rewrite counts) replaces the
/// input whole, and a warning names the rewrites it displaced; everything else merges in
/// configuration order as usual.
pub fn merge_finished_as(
    finished: Vec<(usize, MergeItem)>,
    original_input: Option<&Map<String, Value>>,
    rewrite: &RewriteSpec,
) -> Merged {
    let by_completion: Vec<MergeItem> = finished.iter().map(|(_, i)| i.clone()).collect();
    let mut m = merge_finished(finished, original_input, rewrite.requires_allow);
    if rewrite.competing == CompetingRewrites::LastToFinish && m.updated_input.is_some() {
        let counts = |i: &&MergeItem| {
            i.effect.rewrite.is_some()
                && i.effect.decision != Some(Decision::Deny)
                && (!rewrite.requires_allow || i.effect.decision == Some(Decision::Allow))
        };
        let rewriters: Vec<&MergeItem> = by_completion.iter().filter(counts).collect();
        if let Some(last) = rewriters.last() {
            if rewriters.len() > 1 {
                m.warnings.retain(|w| !w.contains("both rewrite"));
                m.warnings.push(format!(
                    "{} hooks rewrite the input; as the host does, the one that finished last (`{}`) wins whole",
                    rewriters.len(),
                    last.label
                ));
            }
            let only = std::slice::from_ref(*last);
            m.updated_input = merge_rewrites(
                only,
                original_input,
                rewrite.requires_allow,
                &mut Vec::new(),
            );
        }
    }
    m
}

enum Change {
    Set(Value),
    Remove,
}

fn merge_rewrites(
    items: &[MergeItem],
    original: Option<&Map<String, Value>>,
    requires_allow: bool,
    warnings: &mut Vec<String>,
) -> Option<Map<String, Value>> {
    let empty = Map::new();
    let original = original.unwrap_or(&empty);
    let mut result = original.clone();
    // key -> (label of the hook that last set it, what it did)
    let mut owners: Vec<(String, String, Option<Value>)> = Vec::new();
    let mut any = false;
    for item in items {
        let Some(rw) = &item.effect.rewrite else {
            continue;
        };
        let d = item.effect.decision;
        if d == Some(Decision::Deny) || (requires_allow && d != Some(Decision::Allow)) {
            let why = if d == Some(Decision::Deny) {
                "the same hook denies".to_string()
            } else {
                "this host applies it only with permissionDecision \"allow\"".to_string()
            };
            warnings.push(format!(
                "{}: input rewrite `{}` ignored: {why}",
                item.label, rw.field
            ));
            continue;
        }
        any = true;
        let mut changes: Vec<(String, Change)> = Vec::new();
        for (k, v) in &rw.input {
            if rw.style == RewriteStyle::Patch || original.get(k) != Some(v) {
                changes.push((k.clone(), Change::Set(v.clone())));
            }
        }
        if rw.style == RewriteStyle::Replace {
            for k in original.keys() {
                if !rw.input.contains_key(k) {
                    changes.push((k.clone(), Change::Remove));
                }
            }
        }
        for (k, change) in changes {
            let new_val = match &change {
                Change::Set(v) => Some(v.clone()),
                Change::Remove => None,
            };
            if let Some(prev) = owners.iter_mut().find(|(key, _, _)| *key == k) {
                if prev.2 != new_val {
                    warnings.push(format!(
                        "hooks `{}` and `{}` both rewrite `{k}`; the later in configuration order (`{}`) wins",
                        prev.1, item.label, item.label
                    ));
                }
                prev.1 = item.label.clone();
                prev.2 = new_val.clone();
            } else {
                owners.push((k.clone(), item.label.clone(), new_val.clone()));
            }
            match new_val {
                Some(v) => {
                    result.insert(k, v);
                }
                None => {
                    result.shift_remove(&k);
                }
            }
        }
    }
    any.then_some(result)
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
