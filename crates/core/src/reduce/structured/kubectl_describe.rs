//! `kubectl describe …`: every field, status, container state, condition and event is
//! kept; the bulky sections an agent rarely needs (Annotations, Volumes, Mounts,
//! Tolerations, Node-Selectors, System Info, Images) are folded to one line saying how
//! many lines they held. A very long output (many objects) keeps its first 3,000 and last
//! 800 lines (the last objects' Events) and the warning lines between them.

use super::kept::Kept;
use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

/// Lines kept from the start of a long output, from its end (the last resources' Events),
/// and error and warning lines between; the rest is counted where it was.
const MAX_HEAD: usize = 3000;
const MAX_TAIL: usize = 800;
const MAX_MIDDLE: usize = 200;

const FOLDED: &[&str] = &[
    "Annotations",
    "Volumes",
    "Mounts",
    "Tolerations",
    "Node-Selectors",
    "System Info",
    "Images",
    "Environment Variables from",
];

pub struct KubectlDescribe {
    lines: Kept,
    names: u64,
    events: u64,
    warnings: u64,
    filtered: u64,
    /// The folded section: (its indentation, lines hidden). Its summary line is the last
    /// line kept while it lasts.
    folding: Option<(usize, u64)>,
    in_events: bool,
}

impl Default for KubectlDescribe {
    fn default() -> Self {
        KubectlDescribe {
            lines: Kept::new(MAX_HEAD, MAX_TAIL, MAX_MIDDLE),
            names: 0,
            events: 0,
            warnings: 0,
            filtered: 0,
            folding: None,
            in_events: false,
        }
    }
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

impl KubectlDescribe {
    fn keep(&mut self, l: &str) {
        self.lines.push(clip_line(l, 1500).into_owned());
    }

    fn close_fold(&mut self) {
        if let Some((_, n)) = self.folding.take() {
            if n > 0 {
                if let Some(l) = self.lines.last_mut() {
                    l.push_str(&format!("  [{n} lines hidden]"));
                }
            }
        }
    }
}

impl Structured for KubectlDescribe {
    fn push(&mut self, line: &str) {
        let ind = indent(line);
        let t = line.trim();
        if let Some((fi, n)) = self.folding.as_mut() {
            if !t.is_empty() && ind > *fi {
                *n += 1;
                self.filtered += 1;
                return;
            }
        }
        self.close_fold();
        if t.is_empty() {
            self.in_events = false;
            self.keep("");
            return;
        }
        if ind == 0 && t.starts_with("Name:") {
            self.names += 1;
        }
        if ind == 0 {
            self.in_events = t.starts_with("Events:");
        } else if self.in_events {
            let first = t.split_whitespace().next().unwrap_or("");
            if first == "Warning" {
                self.warnings += 1;
                self.events += 1;
            } else if first == "Normal" {
                self.events += 1;
            }
        }
        if let Some((key, value)) = t.split_once(':') {
            if FOLDED.contains(&key) {
                let value = value.trim();
                let shown = if value.is_empty() || value == "<none>" {
                    t.to_string()
                } else {
                    // the first value stays only when it is short
                    format!("{key}:")
                };
                let hidden_first = u64::from(shown.len() < t.len());
                self.keep(&format!("{}{shown}", " ".repeat(ind)));
                self.filtered += hidden_first;
                self.folding = Some((ind, hidden_first));
                return;
            }
        }
        self.keep(line);
    }

    fn finish(mut self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        self.close_fold();
        if self.names == 0 {
            return None;
        }
        let (mut lines, omitted) = std::mem::take(&mut self.lines).finish();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        Some(StructuredOutput {
            name: "kubectl-describe",
            lines,
            facts: vec![
                ("object".into(), self.names),
                ("event".into(), self.events),
                ("warning event".into(), self.warnings),
            ],
            omitted,
            filtered: self.filtered,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_bulky_sections_keeps_status_and_events() {
        let text = "Name:             api-7d9f8b6c5-abcde
Namespace:        default
Annotations:      kubectl.kubernetes.io/restartedAt: 2026-11-20T10:00:00Z
                  checksum/config: 3f2a
Status:           Running
Containers:
  api:
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Exit Code:    1
    Restart Count:  7
    Mounts:
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-x (ro)
Conditions:
  Type              Status
  Ready             False
Volumes:
  kube-api-access-x:
    Type:                    Projected
Events:
  Type     Reason   Age                From     Message
  ----     ------   ----               ----     -------
  Normal   Pulled   5m                 kubelet  Container image \"api:1.2\" already present on machine
  Warning  BackOff  2m (x25 over 7m)   kubelet  Back-off restarting failed container api
";
        let out =
            crate::reduce::structured::feed(Box::new(KubectlDescribe::default()), text, 0).unwrap();
        let t = out.lines.join("\n");
        for want in [
            "Annotations:  [2 lines hidden]",
            "Status:           Running",
            "Reason:       CrashLoopBackOff",
            "Exit Code:    1",
            "    Mounts:  [1 lines hidden]",
            "Ready             False",
            "Volumes:  [2 lines hidden]",
            "Back-off restarting failed container api",
        ] {
            assert!(t.contains(want), "{want} missing:\n{t}");
        }
        assert!(!t.contains("serviceaccount") && !t.contains("Projected"));
        assert_eq!(out.facts[2], ("warning event".into(), 1));
    }

    #[test]
    fn a_long_describe_keeps_the_last_objects_events_and_folds_past_its_head() {
        // `kubectl describe pods` over 300 pods: past the lines kept at the start
        let mut d = Box::new(KubectlDescribe::default());
        for p in 0..300 {
            d.push(&format!("Name:             api-{p}"));
            d.push("Namespace:        default");
            d.push("Annotations:      a: 1");
            d.push("                  b: 2");
            d.push("Status:           Running");
            for k in 0..8 {
                d.push(&format!("  Label{k}:         value-{p}-{k}"));
            }
            d.push("Events:");
            d.push("  Type    Reason   Age  From     Message");
            if p == 299 {
                d.push(
                    "  Warning  BackOff  1m   kubelet  Back-off restarting failed container api",
                );
            } else {
                d.push("  Normal   Pulled   5m   kubelet  Container image already present");
            }
            d.push("");
        }
        let out = d.finish(0).unwrap();
        let t = out.lines.join("\n");
        assert!(out.omitted > 0, "{t}");
        assert!(t.contains("Name:             api-0\n"), "{t}");
        assert!(t.contains(" lines omitted ..."), "{t}");
        // the last pod whole, its fold said on its own line, its warning event kept
        assert!(t.contains("Name:             api-299\nNamespace:        default\nAnnotations:  [2 lines hidden]"), "{t}");
        assert!(
            t.ends_with("Back-off restarting failed container api"),
            "{t}"
        );
        assert_eq!(out.facts[2], ("warning event".into(), 1));
    }

    #[test]
    fn not_describe() {
        let mut d = Box::new(KubectlDescribe::default());
        d.push("Error from server (NotFound): pods \"x\" not found");
        assert!(d.finish(1).is_none());
    }
}
