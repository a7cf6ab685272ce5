use super::*;
use crate::engine::output_parser::Rewrite;
use proptest::prelude::*;
use serde_json::json;

fn item(label: &str, f: impl FnOnce(&mut HookEffect)) -> MergeItem {
    let mut effect = HookEffect::default();
    f(&mut effect);
    MergeItem {
        label: label.into(),
        effect,
    }
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

fn replace(v: Value) -> Option<Rewrite> {
    Some(Rewrite {
        input: obj(v),
        style: RewriteStyle::Replace,
        field: "modifiedInput".into(),
    })
}

#[test]
fn no_hooks_means_no_decision_and_continue() {
    let m = merge(&[], None, false);
    assert_eq!(m.decision, None);
    assert!(m.continue_);
    assert!(!m.blocked());
    assert_eq!(m.updated_input, None);
}

#[test]
fn deny_beats_ask_beats_allow_and_keeps_its_reason() {
    let items = vec![
        item("a", |e| {
            e.decision = Some(Decision::Allow);
            e.reason = Some("fine".into())
        }),
        item("b", |e| {
            e.decision = Some(Decision::Ask);
            e.reason = Some("sure?".into())
        }),
        item("c", |e| {
            e.decision = Some(Decision::Deny);
            e.reason = Some("no".into())
        }),
        item("d", |e| {
            e.decision = Some(Decision::Deny);
            e.reason = Some("also no".into())
        }),
    ];
    let m = merge(&items, None, false);
    assert_eq!(m.decision, Some(Decision::Deny));
    assert_eq!(m.reason.as_deref(), Some("no"));
    assert!(m.blocked());
    let m = merge(&items[..2], None, false);
    assert_eq!(m.decision, Some(Decision::Ask));
    assert_eq!(m.reason.as_deref(), Some("sure?"));
    assert!(!m.blocked());
}

#[test]
fn continue_false_wins_with_the_first_stop_reason() {
    let items = vec![
        item("a", |e| e.continue_ = Some(true)),
        item("b", |e| {
            e.continue_ = Some(false);
            e.stop_reason = Some("first".into())
        }),
        item("c", |e| {
            e.continue_ = Some(false);
            e.stop_reason = Some("second".into())
        }),
    ];
    let m = merge(&items, None, false);
    assert!(!m.continue_);
    assert_eq!(m.stop_reason.as_deref(), Some("first"));
    assert!(m.blocked());
}

#[test]
fn contexts_and_messages_are_all_kept_in_order() {
    let items = vec![
        item("a", |e| {
            e.additional_context = vec!["one".into()];
            e.system_message = Some("m1".into())
        }),
        item("b", |e| e.suppress_output = true),
        item("c", |e| {
            e.additional_context = vec!["two".into(), "three".into()];
            e.system_message = Some("m2".into())
        }),
    ];
    let m = merge(&items, None, false);
    assert_eq!(m.additional_context, vec!["one", "two", "three"]);
    assert_eq!(m.system_message.as_deref(), Some("m1\nm2"));
    assert!(m.suppress_output);
}

#[test]
fn rewrites_of_different_keys_both_apply() {
    let original = obj(json!({"command": "npm install", "requires_approval": false}));
    let items = vec![
        item("a", |e| {
            e.decision = Some(Decision::Allow);
            e.rewrite = replace(
                json!({"command": "npm install --legacy-peer-deps", "requires_approval": false}),
            )
        }),
        item("b", |e| {
            e.decision = Some(Decision::Allow);
            e.rewrite = replace(json!({"command": "npm install", "requires_approval": true}))
        }),
    ];
    let m = merge(&items, Some(&original), true);
    assert_eq!(
        Value::Object(m.updated_input.unwrap()),
        json!({"command": "npm install --legacy-peer-deps", "requires_approval": true})
    );
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

#[test]
fn conflicting_rewrites_later_in_config_order_wins_with_a_warning() {
    let original = obj(json!({"command": "ls"}));
    let items = vec![
        item("first", |e| {
            e.decision = Some(Decision::Allow);
            e.rewrite = replace(json!({"command": "ls -a"}))
        }),
        item("second", |e| {
            e.decision = Some(Decision::Allow);
            e.rewrite = replace(json!({"command": "ls -l"}))
        }),
    ];
    let m = merge(&items, Some(&original), false);
    assert_eq!(
        m.updated_input.unwrap().get("command"),
        Some(&json!("ls -l"))
    );
    assert!(
        m.warnings[0].contains("`first` and `second` both rewrite `command`"),
        "{:?}",
        m.warnings
    );
}

#[test]
fn replace_removes_keys_and_patch_does_not() {
    let original = obj(json!({"a": 1, "b": 2}));
    let m = merge(
        &[item("r", |e| e.rewrite = replace(json!({"a": 1})))],
        Some(&original),
        false,
    );
    assert_eq!(Value::Object(m.updated_input.unwrap()), json!({"a": 1}));
    let patch = Rewrite {
        input: obj(json!({"c": 3})),
        style: RewriteStyle::Patch,
        field: "tool_input".into(),
    };
    let m = merge(
        &[item("p", |e| e.rewrite = Some(patch))],
        Some(&original),
        false,
    );
    assert_eq!(
        Value::Object(m.updated_input.unwrap()),
        json!({"a": 1, "b": 2, "c": 3})
    );
}

#[test]
fn rewrites_need_allow_where_the_host_says_so_and_never_survive_a_block() {
    let original = obj(json!({"command": "ls"}));
    let no_decision = vec![item("a", |e| {
        e.rewrite = replace(json!({"command": "ls -a"}))
    })];
    assert!(merge(&no_decision, Some(&original), true)
        .updated_input
        .is_none());
    assert!(merge(&no_decision, Some(&original), false)
        .updated_input
        .is_some());
    let blocked = vec![
        item("a", |e| {
            e.decision = Some(Decision::Allow);
            e.rewrite = replace(json!({"command": "ls -a"}))
        }),
        item("b", |e| e.decision = Some(Decision::Deny)),
    ];
    assert!(merge(&blocked, Some(&original), false)
        .updated_input
        .is_none());
    let self_denied = vec![item("a", |e| {
        e.decision = Some(Decision::Deny);
        e.rewrite = replace(json!({"command": "x"}))
    })];
    assert!(merge(&self_denied, Some(&original), false)
        .updated_input
        .is_none());
}

fn arb_effect() -> impl Strategy<Value = HookEffect> {
    (
        prop::option::of(prop_oneof![
            Just(Decision::Allow),
            Just(Decision::Ask),
            Just(Decision::Deny)
        ]),
        prop::option::of("[a-z]{1,5}"),
        prop::option::of(any::<bool>()),
        prop::option::of("[a-z]{1,5}"),
        prop::collection::vec("[a-z]{1,4}", 0..3),
        prop::option::of("[a-z]{1,4}"),
        any::<bool>(),
        prop::option::of(prop::collection::btree_map("[ab]", 0u8..3, 0..3)),
    )
        .prop_map(
            |(decision, reason, cont, stop, ctx, msg, suppress, rw)| HookEffect {
                decision,
                reason,
                continue_: cont,
                stop_reason: stop,
                additional_context: ctx,
                system_message: msg,
                suppress_output: suppress,
                rewrite: rw.map(|m| Rewrite {
                    input: m.into_iter().map(|(k, v)| (k, json!(v))).collect(),
                    style: RewriteStyle::Replace,
                    field: "updatedInput".into(),
                }),
                ..HookEffect::default()
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Hooks finish in any order; the engine sorts results back into configuration order
    /// before merging, so the outcome is the same for every completion order.
    #[test]
    fn completion_order_never_changes_the_result(
        effects in prop::collection::vec(arb_effect(), 0..6),
        seed in any::<u64>(),
        requires_allow in any::<bool>(),
    ) {
        let items: Vec<MergeItem> = effects.into_iter().enumerate()
            .map(|(i, effect)| MergeItem { label: format!("hook{i}"), effect }).collect();
        let original = obj(json!({"a": 0, "b": 1}));
        let in_config_order: Vec<(usize, MergeItem)> = items.iter().cloned().enumerate().collect();
        let expected = merge_finished(in_config_order.clone(), Some(&original), requires_allow);
        prop_assert_eq!(&expected, &merge(&items, Some(&original), requires_allow));

        // Any completion order: a seeded Fisher-Yates permutation.
        let mut finished = in_config_order;
        let mut s = seed;
        for i in (1..finished.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let j = (s >> 33) as usize % (i + 1);
            finished.swap(i, j);
        }
        prop_assert_eq!(merge_finished(finished, Some(&original), requires_allow), expected.clone());

        // And the precedence invariants hold.
        let any_deny = items.iter().any(|i| i.effect.decision == Some(Decision::Deny));
        prop_assert_eq!(expected.decision == Some(Decision::Deny), any_deny);
        let any_stop = items.iter().any(|i| i.effect.continue_ == Some(false));
        prop_assert_eq!(!expected.continue_, any_stop);
        if expected.blocked() { prop_assert!(expected.updated_input.is_none()); }
        let ctx: Vec<String> = items.iter().flat_map(|i| i.effect.additional_context.clone()).collect();
        prop_assert_eq!(expected.additional_context, ctx);
    }
}
