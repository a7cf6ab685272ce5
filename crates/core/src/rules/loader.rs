//! Rule layers: built-in < user (`$XDG_CONFIG_HOME/tokenjuice/rules`) < project
//! (`.tokenjuice/rules` in every directory from the repository root down to the
//! working directory, inner ones last). Later layers override earlier ones by `id`.

use std::path::{Path, PathBuf};

use super::model::{Diagnostic, Rule};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    Builtin,
    User,
    Project,
}

impl Layer {
    pub fn name(self) -> &'static str {
        match self {
            Layer::Builtin => "builtin",
            Layer::User => "user",
            Layer::Project => "project",
        }
    }
}

/// A rule read from a user or project file.
#[derive(Debug, Clone)]
pub struct FileRule {
    pub rule: Rule,
    pub layer: Layer,
    pub path: PathBuf,
}

/// A problem with a rule file: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: String,
    pub json_path: String,
    pub message: String,
    /// Errors make `verify` fail and get the rule skipped; warnings do neither.
    pub is_error: bool,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.file, self.json_path, self.message)
    }
}

/// Where user and project rules live for one run.
#[derive(Debug, Clone, Default)]
pub struct RuleDirs {
    pub user: Option<PathBuf>,
    /// Outermost first.
    pub project: Vec<PathBuf>,
}

impl RuleDirs {
    /// `env` reads an environment variable (injected so tests need not touch the process env).
    pub fn discover(cwd: &Path, env: impl Fn(&str) -> Option<String>) -> RuleDirs {
        let user = env("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                env("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".config"))
            })
            .map(|base| base.join("tokenjuice").join("rules"))
            .filter(|p| p.is_dir());
        let mut project = Vec::new();
        let mut dir = Some(cwd);
        while let Some(d) = dir {
            let candidate = d.join(".tokenjuice").join("rules");
            if candidate.is_dir() && Some(&candidate) != user.as_ref() {
                project.push(candidate);
            }
            if d.join(".git").exists() {
                break;
            }
            dir = d.parent();
        }
        project.reverse();
        RuleDirs { user, project }
    }

    pub fn is_empty(&self) -> bool {
        self.user.is_none() && self.project.is_empty()
    }
}

/// User and project rules, after overriding by id, plus every problem found.
#[derive(Debug, Default)]
pub struct FileRules {
    pub rules: Vec<FileRule>,
    pub problems: Vec<Problem>,
}

/// All `*.json` rule files below `dir` (sorted; fixtures and schemas skipped).
pub fn rule_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut out, 0, &is_rule_file);
    out.sort();
    out
}

/// All `*.fixture.json` files below `dir` (sorted).
pub fn fixture_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut out, 0, &|n| n.ends_with(".fixture.json"));
    out.sort();
    out
}

/// Files below `dir` (at most 8 levels, hidden directories skipped) whose name `keep` accepts.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize, keep: &dyn Fn(&str) -> bool) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if depth < 8 && !name.starts_with('.') {
                walk(&p, out, depth + 1, keep);
            }
        } else if keep(&name) {
            out.push(p);
        }
    }
}

fn is_rule_file(name: &str) -> bool {
    name.ends_with(".json") && !name.ends_with(".fixture.json") && !name.ends_with(".schema.json")
}

/// Parse and fully check one rule's text (regexes compiled).
pub fn parse_rule(text: &str) -> Result<Rule, Vec<Diagnostic>> {
    parse_rule_with(text, true)
}

fn parse_rule_with(text: &str, regexes: bool) -> Result<Rule, Vec<Diagnostic>> {
    checked(Rule::from_json(text).map_err(|d| vec![d])?, regexes)
}

/// A built-in rule read and checked as [`parse_rule`] checks a file's.
pub fn parse_builtin(b: &super::builtin::BuiltinRule) -> Result<Rule, Vec<Diagnostic>> {
    checked(b.rule().map_err(|d| vec![d])?, true)
}

fn checked(rule: Rule, regexes: bool) -> Result<Rule, Vec<Diagnostic>> {
    let problems = if regexes {
        rule.check()
    } else {
        rule.check_structure()
    };
    if problems.is_empty() {
        Ok(rule)
    } else {
        Err(problems)
    }
}

/// Load user and project rules for a run. Broken files are skipped and reported, never
/// fatal. Regexes are not compiled here (only the winning rule's are, when it is used);
/// [`load_files_checked`] compiles them all, for `verify`.
pub fn load_files(dirs: &RuleDirs) -> FileRules {
    load(dirs, false)
}

/// [`load_files`] with every regex compiled and checked.
pub fn load_files_checked(dirs: &RuleDirs) -> FileRules {
    load(dirs, true)
}

fn load(dirs: &RuleDirs, regexes: bool) -> FileRules {
    let mut out = FileRules::default();
    let mut layers: Vec<(Layer, &PathBuf)> = Vec::new();
    if let Some(u) = &dirs.user {
        layers.push((Layer::User, u));
    }
    for p in &dirs.project {
        layers.push((Layer::Project, p));
    }
    for (layer, dir) in layers {
        let mut ids_here: Vec<(String, PathBuf)> = Vec::new();
        for path in rule_files(dir) {
            let shown = path.display().to_string();
            // project rules come with a cloned repository: regular files only, never
            // blocking, size-capped; anything else is skipped with this one problem
            let text = match tokenjuice_untrusted::read_to_string(
                &path,
                tokenjuice_untrusted::MAX_RULE_FILE,
            ) {
                Ok(t) => t,
                Err(e) => {
                    out.problems.push(Problem {
                        file: shown,
                        json_path: "$".into(),
                        message: format!("skipped, cannot be read as a rule file: {e}"),
                        is_error: true,
                    });
                    continue;
                }
            };
            let rule = match parse_rule_with(&text, regexes) {
                Ok(r) => r,
                Err(diags) => {
                    for d in diags {
                        out.problems.push(Problem {
                            file: shown.clone(),
                            json_path: d.path,
                            message: d.message,
                            is_error: true,
                        });
                    }
                    continue;
                }
            };
            if let Some((_, first)) = ids_here.iter().find(|(id, _)| *id == rule.id) {
                out.problems.push(Problem {
                    file: shown,
                    json_path: "$.id".into(),
                    message: format!("duplicate id `{}` in the {} layer (first defined in {}); this copy is ignored", rule.id, layer.name(), first.display()),
                    is_error: true,
                });
                continue;
            }
            ids_here.push((rule.id.clone(), path.clone()));
            if let Some(pos) = out.rules.iter().position(|r| r.rule.id == rule.id) {
                let prev = out.rules.remove(pos);
                out.problems.push(Problem {
                    file: shown,
                    json_path: "$.id".into(),
                    message: format!(
                        "overrides {} rule `{}` from {}",
                        prev.layer.name(),
                        rule.id,
                        prev.path.display()
                    ),
                    is_error: false,
                });
            } else if super::builtin::find(&rule.id).is_some() {
                out.problems.push(Problem {
                    file: shown,
                    json_path: "$.id".into(),
                    message: format!("overrides builtin rule `{}`", rule.id),
                    is_error: false,
                });
            }
            out.rules.push(FileRule { rule, layer, path });
        }
    }
    out
}
