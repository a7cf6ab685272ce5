//! Terraform / OpenTofu: `plan`, `apply`, `destroy`, `init`, `validate`.
//!
//! Kept: every resource change line (`# aws_instance.api will be created`) with the
//! attributes that change (`~`, `-`, `+` lines, `# forces replacement`), literal values of
//! created resources (those `(known after apply)` go), the `Plan:` / `Apply complete!`
//! summaries, `Changes to Outputs:` and `Outputs:`, what was created/modified/destroyed
//! (`Creation complete after 2s [id=…]`), installed providers, and every error and warning
//! box whole. Dropped (counted): refresh and read lines, state-lock lines, the action
//! legend, `Still creating…` progress, unchanged attributes, the `-out` note and other
//! advice paragraphs. A very long plan keeps its first 2,000 and last 500 lines (the
//! `Plan:` line and what follows it) and the error and warning lines between them.

use super::kept::Kept;
use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

/// Lines kept from the start of a long plan, from its end (the `Plan:` line, errors after
/// it), and error and warning lines between; the rest is counted where it was.
const MAX_HEAD: usize = 2000;
const MAX_TAIL: usize = 500;
const MAX_MIDDLE: usize = 200;
/// Attribute lines kept per created resource.
const CREATE_ATTRS: usize = 12;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Action {
    Create,
    Update,
    Replace,
    Destroy,
    Read,
    Other,
}

pub struct Terraform {
    lines: Kept,
    filtered: u64,
    recognized: u32,
    /// Inside a resource block after its `# … will be …` line.
    block: Option<(Action, usize)>,
    /// Inside an error/warning box.
    in_box: bool,
    /// Dropping an advice paragraph until the next blank line.
    skip_paragraph: bool,
}

impl Default for Terraform {
    fn default() -> Self {
        Terraform {
            lines: Kept::new(MAX_HEAD, MAX_TAIL, MAX_MIDDLE),
            filtered: 0,
            recognized: 0,
            block: None,
            in_box: false,
            skip_paragraph: false,
        }
    }
}

fn action_of(header: &str) -> Option<Action> {
    let t = header.trim_start();
    if !t.starts_with("# ") {
        return None;
    }
    let a = if t.ends_with("will be created") {
        Action::Create
    } else if t.ends_with("will be updated in-place") {
        Action::Update
    } else if t.contains("must be replaced") || t.ends_with("will be replaced") {
        Action::Replace
    } else if t.ends_with("will be destroyed") {
        Action::Destroy
    } else if t.ends_with("will be read during apply") {
        Action::Read
    } else if t.contains(" has moved to ") || t.contains("will be imported") {
        Action::Other
    } else {
        return None;
    };
    Some(a)
}

/// Paragraph openers whose paragraph is advice, not a fact.
const ADVICE: &[&str] = &[
    "Note: You didn't use the -out option",
    "Terraform used the selected providers to generate",
    "OpenTofu used the selected providers to generate",
    "Terraform has created a lock file",
    "OpenTofu has created a lock file",
    "You may now begin working with",
    "If you ever set or change modules",
    "Do you want to perform these actions",
    "Terraform will perform the actions described above.",
    "To perform exactly these actions, run the following command",
    "Unless you have made equivalent changes to your configuration",
    "Terraform detected the following changes made outside of Terraform",
    "This is a refresh-only plan",
    "Providers are signed by their developers.",
];

fn is_noise(t: &str) -> bool {
    t.ends_with(": Refreshing state...")
        || t.contains(": Refreshing state... [")
        || t.ends_with(": Reading...")
        || t.contains(": Read complete after ")
        || t.contains(": Still creating... [")
        || t.contains(": Still modifying... [")
        || t.contains(": Still destroying... [")
        || t.contains(": Still reading... [")
        || t.ends_with(": Creating...")
        || t.ends_with(": Modifying...")
        || t.contains(": Modifying... [id=")
        || t.contains(": Destroying... [id=")
        || t.ends_with(": Destroying...")
        || t.starts_with("Acquiring state lock")
        || t.starts_with("Releasing state lock")
        || t.starts_with("Initializing ")
        || t.starts_with("- Finding ")
        || t.starts_with("- Installing ")
        || t.starts_with("- Using previously-installed ")
        || t.starts_with("- Reusing previous version of ")
        || t == "Terraform will perform the following actions:"
        || t == "OpenTofu will perform the following actions:"
        || t.chars().all(|c| c == '─')
}

impl Terraform {
    fn keep(&mut self, line: &str) {
        self.lines.push(clip_line(line, 1000).into_owned());
    }

    fn block_line(&mut self, action: Action, n: usize, line: &str) {
        let t = line.trim_start();
        // the `+ resource "t" "n" {` opener and closing braces repeat the header
        if n == 0 && (t.contains(" resource \"") || t.contains(" data \"")) {
            self.filtered += 1;
            self.block = Some((action, 1));
            return;
        }
        self.block = Some((action, n + 1));
        let marker = t.starts_with("+ ")
            || t.starts_with("- ")
            || t.starts_with("~ ")
            || t.starts_with("-/+ ")
            || t.starts_with("+/- ");
        let keep = match action {
            Action::Update | Action::Replace | Action::Other => {
                marker || t.contains("# forces replacement") || t.starts_with("# (because")
            }
            Action::Create => marker && !t.contains("(known after apply)") && n <= CREATE_ATTRS,
            Action::Destroy | Action::Read => t.starts_with("# (because"),
        };
        if keep {
            self.keep(line);
        } else {
            self.filtered += 1;
        }
    }
}

impl Structured for Terraform {
    fn push(&mut self, line: &str) {
        let t = line.trim();
        // error / warning boxes: kept whole, box edges dropped
        if t == "╷" {
            self.in_box = true;
            self.recognized += 1;
            self.block = None;
            return;
        }
        if self.in_box {
            if t == "╵" {
                self.in_box = false;
                self.keep("");
                return;
            }
            let inner = line
                .trim_start()
                .strip_prefix('│')
                .map_or(line, |s| s.strip_prefix(' ').unwrap_or(s));
            if inner.trim().is_empty() {
                self.filtered += 1;
            } else {
                self.keep(inner);
            }
            return;
        }
        if t.is_empty() {
            self.block = None;
            self.skip_paragraph = false;
            if self.lines.last().is_some_and(|l| !l.is_empty()) {
                self.keep("");
            }
            return;
        }
        if self.skip_paragraph {
            self.filtered += 1;
            return;
        }
        if let Some(a) = action_of(line) {
            self.recognized += 1;
            self.block = Some((a, 0));
            self.keep(line);
            return;
        }
        if self.block.is_some()
            && !line.starts_with(' ')
            && !["-/+ ", "+/- ", "<= "].iter().any(|p| line.starts_with(p))
        {
            // resource blocks are indented: an unindented line ends one
            self.block = None;
        }
        if let Some((a, n)) = self.block {
            if t.starts_with("# (because") || t.starts_with("# (moved from") {
                self.keep(line);
                return;
            }
            if t == "}" || t == "]" || t == "})" || t == "]," || t == "}," {
                self.filtered += 1;
                return;
            }
            if t.starts_with("# (") && t.ends_with("hidden)") {
                self.filtered += 1;
                return;
            }
            self.block_line(a, n, line);
            return;
        }
        if ADVICE.iter().any(|a| t.starts_with(a)) {
            self.recognized += 1;
            self.skip_paragraph = true;
            self.filtered += 1;
            return;
        }
        if is_noise(t) {
            self.recognized += 1;
            self.filtered += 1;
            return;
        }
        if t.starts_with("Plan: ")
            || t.starts_with("Apply complete!")
            || t.starts_with("Destroy complete!")
            || t.starts_with("No changes.")
            || t.contains(" complete after ")
            || t.starts_with("Error: ")
            || t.starts_with("Warning: ")
            || t.starts_with("Terraform has been successfully initialized")
            || t.starts_with("OpenTofu has been successfully initialized")
            || t.starts_with("Success! The configuration is valid")
            || t.starts_with("Changes to Outputs:")
            || t.starts_with("Outputs:")
        {
            self.recognized += 1;
        }
        self.keep(line);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.recognized == 0 {
            return None;
        }
        let (mut lines, omitted) = self.lines.finish();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        Some(StructuredOutput {
            name: "terraform",
            lines,
            facts: Vec::new(),
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

    fn run(text: &str, code: i32) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::new(Terraform::default()), text, code)
    }

    const PLAN: &str = r#"terraform_data.old: Refreshing state... [id=1b2c]
terraform_data.app: Refreshing state... [id=9f8e]

Terraform used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
  + create
  ~ update in-place
  - destroy

Terraform will perform the following actions:

  # terraform_data.app will be updated in-place
  ~ resource "terraform_data" "app" {
        id     = "9f8e"
      ~ input  = "v1" -> "v2"
      ~ output = "v1" -> (known after apply)
        # (1 unchanged attribute hidden)
    }

  # terraform_data.new will be created
  + resource "terraform_data" "new" {
      + id     = (known after apply)
      + input  = "hello"
      + output = (known after apply)
    }

  # terraform_data.old will be destroyed
  # (because terraform_data.old is not in configuration)
  - resource "terraform_data" "old" {
      - id     = "1b2c" -> null
      - input  = "bye" -> null
    }

Plan: 1 to add, 1 to change, 1 to destroy.

─────────────────────────────────────────────────────────────────────────────

Note: You didn't use the -out option to save this plan, so Terraform can't
guarantee to take exactly these actions if you run "terraform apply" now.
"#;

    #[test]
    fn a_long_plan_keeps_its_summary_and_the_errors_after_it() {
        // 400 resources updated in place, 10 attributes each: past the lines kept at the start
        let mut text = String::from("Terraform will perform the following actions:\n\n");
        for r in 0..400 {
            text.push_str(&format!(
                "  # aws_s3_object.f{r} will be updated in-place\n  ~ resource \"aws_s3_object\" \"f{r}\" {{\n"
            ));
            for a in 0..10 {
                text.push_str(&format!("      ~ tag_{a} = \"v{r}\" -> \"w{r}\"\n"));
            }
            text.push_str("    }\n\n");
        }
        text.push_str("Plan: 0 to add, 400 to change, 0 to destroy.\n\n");
        text.push_str("╷\n│ Warning: Argument is deprecated\n│ \n│ Use tags_all instead.\n╵\n");
        let out = run(&text, 0).unwrap();
        let t = out.lines.join("\n");
        assert!(out.omitted > 0, "{t}");
        assert!(
            t.contains("aws_s3_object.f0 will be updated in-place"),
            "{t}"
        );
        assert!(
            t.contains("Plan: 0 to add, 400 to change, 0 to destroy."),
            "{t}"
        );
        assert!(t.contains("Warning: Argument is deprecated"), "{t}");
        assert!(t.contains(" lines omitted ..."), "{t}");
    }

    #[test]
    fn plan_keeps_changes_and_summary() {
        let out = run(PLAN, 0).unwrap();
        let t = out.lines.join("\n");
        for want in [
            "# terraform_data.app will be updated in-place",
            "~ input  = \"v1\" -> \"v2\"",
            "# terraform_data.new will be created",
            "+ input  = \"hello\"",
            "# terraform_data.old will be destroyed",
            "# (because terraform_data.old is not in configuration)",
            "Plan: 1 to add, 1 to change, 1 to destroy.",
        ] {
            assert!(t.contains(want), "{want} missing:\n{t}");
        }
        for gone in [
            "Refreshing state",
            "Resource actions are indicated",
            "+ id",
            "unchanged attribute",
            "-out option",
            "\"1b2c\" -> null",
        ] {
            assert!(!t.contains(gone), "{gone} kept:\n{t}");
        }
        assert!(out.filtered > 10);
    }

    #[test]
    fn error_boxes_are_kept_whole() {
        let text = "╷
│ Error: Reference to undeclared resource
│
│   on main.tf line 7, in resource \"terraform_data\" \"b\":
│    7:   input = terraform_data.missing.id
│
│ A managed resource \"terraform_data\" \"missing\" has not been declared in the root module.
╵
";
        let t = run(text, 1).unwrap().lines.join("\n");
        assert!(
            t.starts_with("Error: Reference to undeclared resource"),
            "{t}"
        );
        assert!(t.contains("on main.tf line 7"), "{t}");
        assert!(t.contains("has not been declared"), "{t}");
        assert!(!t.contains('│'));
    }

    #[test]
    fn not_terraform() {
        assert!(run("aws_instance.web\naws_s3_bucket.logs\n", 0).is_none());
    }
}
