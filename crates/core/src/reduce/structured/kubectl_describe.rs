//! `kubectl describe …`: every field, status, container state, condition and event is
//! kept; the bulky sections an agent rarely needs (Annotations, Volumes, Mounts,
//! Tolerations, Node-Selectors, System Info, Images) are folded to one line saying how
//! many lines they held.

use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

const MAX_KEPT: usize = 4000;

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

#[derive(Default)]
pub struct KubectlDescribe {
    lines: Vec<String>,
    names: u64,
    events: u64,
    warnings: u64,
    omitted: u64,
    filtered: u64,
    /// The folded section: (its indentation, index of its summary line, lines hidden).
    folding: Option<(usize, usize, u64)>,
    in_events: bool,
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

impl KubectlDescribe {
    fn keep(&mut self, l: &str) {
        if self.lines.len() < MAX_KEPT {
            self.lines.push(clip_line(l, 1500).into_owned());
        } else {
            self.omitted += 1;
        }
    }

    fn close_fold(&mut self) {
        if let Some((_, at, n)) = self.folding.take() {
            if n > 0 {
                if let Some(l) = self.lines.get_mut(at) {
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
        if let Some((fi, _, n)) = self.folding.as_mut() {
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
                let at = self.lines.len().saturating_sub(1);
                self.filtered += hidden_first;
                self.folding = Some((ind, at, hidden_first));
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
        while self.lines.last().is_some_and(String::is_empty) {
            self.lines.pop();
        }
        if self.omitted > 0 {
            self.lines
                .push(format!("... {} more lines omitted ...", self.omitted));
        }
        Some(StructuredOutput {
            name: "kubectl-describe",
            lines: self.lines,
            facts: vec![
                ("object".into(), self.names),
                ("event".into(), self.events),
                ("warning event".into(), self.warnings),
            ],
            omitted: self.omitted,
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
    fn not_describe() {
        let mut d = Box::new(KubectlDescribe::default());
        d.push("Error from server (NotFound): pods \"x\" not found");
        assert!(d.finish(1).is_none());
    }
}
