//! One scripted agent session: a fake model that makes the given tool calls one after the
//! other (each after the previous call's result came back), then ends with a short text; the
//! agent run with a timeout; every request kept.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::http::{Request, Response, Server};
use crate::wire::{self, ToolResult, Turn, Wire};

/// Prefix of the call ids the fake model hands out.
pub const CALL_PREFIX: &str = "tjcall_";

/// The results of the calls our model made (an agent may add calls of its own, as Copilot CLI
/// reads a finished background command's output by itself); Gemini's carry no call id, and
/// Droid sends ours back wrapped (`call_tjcall_0_0`).
fn our_results(wire: Wire, body: &Value) -> Vec<wire::ToolResult> {
    wire::tool_results(wire, body)
        .into_iter()
        .filter(|r| wire == Wire::Gemini || r.call_id.contains(CALL_PREFIX))
        .collect()
}

/// A session to run (also the JSON spec of `tj-e2e run`).
#[derive(Debug, Clone)]
pub struct Spec {
    pub wire: Wire,
    /// The shell tool's name as the agent declares it.
    pub tool: String,
    /// Arguments of each call, in order.
    pub calls: Vec<Value>,
    pub final_text: String,
    pub model: String,
    pub argv: Vec<String>,
    /// The whole environment of the agent (nothing is inherited); `{PORT}` is replaced.
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    pub timeout: Duration,
    /// Files written before the start; `{PORT}` in the text is replaced.
    pub files: Vec<(PathBuf, String)>,
    /// What the agent reads on stdin (stream-json input modes); nothing when `None`.
    pub stdin: Option<String>,
}

/// What happened.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub exit: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub duration_ms: u64,
    /// `(path, body)` of every request, in arrival order.
    pub requests: Vec<(String, Value)>,
    /// When each request arrived, in ms after the agent started.
    pub arrivals_ms: Vec<u64>,
    /// The tool results of the request that carried the most of them.
    pub results: Vec<ToolResult>,
}

impl Spec {
    pub fn from_json(v: &Value) -> Result<Spec, String> {
        let s = |k: &str| {
            v[k].as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("spec: `{k}` must be a string"))
        };
        let wire = Wire::parse(&s("wire")?).ok_or("spec: unknown `wire`")?;
        let pairs = |k: &str| -> Vec<(String, String)> {
            v[k].as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                        .collect()
                })
                .unwrap_or_default()
        };
        Ok(Spec {
            wire,
            tool: s("tool")?,
            calls: v["calls"].as_array().cloned().unwrap_or_default(),
            final_text: v["final_text"].as_str().unwrap_or("done").into(),
            model: v["model"].as_str().unwrap_or("fake-model").into(),
            argv: v["argv"]
                .as_array()
                .ok_or("spec: `argv` must be an array")?
                .iter()
                .map(|a| a.as_str().unwrap_or("").to_string())
                .collect(),
            env: pairs("env"),
            cwd: PathBuf::from(s("cwd")?),
            timeout: Duration::from_secs(v["timeout_s"].as_u64().unwrap_or(180)),
            files: pairs("files")
                .into_iter()
                .map(|(p, t)| (PathBuf::from(p), t))
                .collect(),
            stdin: v["stdin"].as_str().map(str::to_string),
        })
    }

    pub fn to_json(&self) -> Value {
        json!({
            "wire": match self.wire {
                Wire::Anthropic => "anthropic",
                Wire::OpenAiChat => "openai-chat",
                Wire::OpenAiResponses => "openai-responses",
                Wire::Gemini => "gemini",
            },
            "tool": self.tool,
            "calls": self.calls,
            "final_text": self.final_text,
            "model": self.model,
            "argv": self.argv,
            "env": self.env.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
            "cwd": self.cwd,
            "timeout_s": self.timeout.as_secs(),
            "files": self.files.iter().map(|(k, v)| (k.display().to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
            "stdin": self.stdin,
        })
    }
}

impl Outcome {
    /// How long the agent took over each tool call, as the model server saw it: from the
    /// request that carried `k` results to the one that carried `k + 1`.
    pub fn call_times_ms(&self, wire: Wire) -> Vec<u64> {
        let mut first_with: Vec<Option<u64>> = Vec::new();
        for ((_, body), at) in self.requests.iter().zip(&self.arrivals_ms) {
            let n = our_results(wire, body).len();
            if first_with.len() <= n {
                first_with.resize(n + 1, None);
            }
            if first_with[n].is_none() {
                first_with[n] = Some(*at);
            }
        }
        first_with
            .windows(2)
            .filter_map(|w| Some(w[1]?.saturating_sub(w[0]?)))
            .collect()
    }

    pub fn to_json(&self) -> Value {
        json!({
            "exit": self.exit,
            "timed_out": self.timed_out,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "duration_ms": self.duration_ms,
            "requests": self.requests.iter().zip(self.arrivals_ms.iter().chain(std::iter::repeat(&0))).map(|((p, b), t)| json!({"path": p, "body": b, "at_ms": t})).collect::<Vec<_>>(),
            "results": self.results.iter().map(|r| json!({"call_id": r.call_id, "text": r.text, "is_error": r.is_error})).collect::<Vec<_>>(),
        })
    }

    pub fn from_json(v: &Value) -> Outcome {
        Outcome {
            exit: v["exit"].as_i64().map(|c| c as i32),
            timed_out: v["timed_out"].as_bool().unwrap_or(false),
            stdout: v["stdout"].as_str().unwrap_or("").into(),
            stderr: v["stderr"].as_str().unwrap_or("").into(),
            duration_ms: v["duration_ms"].as_u64().unwrap_or(0),
            requests: v["requests"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| (r["path"].as_str().unwrap_or("").into(), r["body"].clone()))
                .collect(),
            arrivals_ms: v["requests"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| r["at_ms"].as_u64().unwrap_or(0))
                .collect(),
            results: v["results"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| ToolResult {
                    call_id: r["call_id"].as_str().unwrap_or("").into(),
                    text: r["text"].as_str().unwrap_or("").into(),
                    is_error: r["is_error"].as_bool(),
                })
                .collect(),
        }
    }
}

/// The fake model's answer to one request.
pub fn respond(spec: &Spec, req: &Request, body: &Value) -> Response {
    let path = req.path();
    if path.ends_with("/count_tokens") {
        return Response::json(&json!({"input_tokens": 10}));
    }
    if path.contains(":countTokens") {
        return Response::json(&json!({"totalTokens": 10}));
    }
    if req.method == "GET" {
        return Response::json(
            &json!({"object": "list", "data": [{"id": spec.model, "object": "model", "created": 1, "owned_by": "fake"}], "models": []}),
        );
    }
    let stream = match spec.wire {
        Wire::Gemini => path.contains(":streamGenerateContent"),
        Wire::OpenAiResponses => true,
        _ => body["stream"].as_bool().unwrap_or(false),
    };
    let offers_tool = wire::tool_names(spec.wire, body)
        .iter()
        .any(|n| n == &spec.tool);
    let results = our_results(spec.wire, body);
    let done = results.len();
    let structured;
    let call;
    let turn = if offers_tool && done < spec.calls.len() {
        call = call_args(&spec.calls[done], &results);
        Turn::Call {
            id: format!("{CALL_PREFIX}{done}"),
            name: call.0.as_deref().unwrap_or(&spec.tool),
            args: &call.1,
        }
    } else if let Some(schema) = json_schema(body) {
        // side requests that want JSON (Gemini's model router) get an object of that shape;
        // anything else makes the agent retry with back-off
        structured = sample_of(schema).to_string();
        Turn::Text(&structured)
    } else {
        Turn::Text(if offers_tool { &spec.final_text } else { "ok" })
    };
    let (is_sse, text) = wire::answer(spec.wire, &turn, stream, &spec.model);
    if is_sse {
        Response::sse(text)
    } else {
        Response {
            status: 200,
            content_type: "application/json",
            body: text.into_bytes(),
        }
    }
}

/// A scripted call's tool and arguments: `"__tool"` names another tool than the shell tool
/// (Codex's `write_stdin`), and a string `"{SESSION_ID}"` becomes the number of the last
/// `session ID <n>` an earlier result named (Codex's running-command sessions get random
/// ids).
fn call_args(args: &Value, results: &[wire::ToolResult]) -> (Option<String>, Value) {
    let mut args = args.clone();
    let tool = args
        .as_object_mut()
        .and_then(|o| o.remove("__tool"))
        .and_then(|t| t.as_str().map(str::to_string));
    let session = results.iter().rev().find_map(|r| {
        let (_, rest) = r.text.split_once("session ID ")?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u64>().ok()
    });
    if let (Some(o), Some(n)) = (args.as_object_mut(), session) {
        for v in o.values_mut() {
            if v == "{SESSION_ID}" {
                *v = json!(n);
            }
        }
    }
    (tool, args)
}

fn json_schema(body: &Value) -> Option<&Value> {
    let g = &body["generationConfig"];
    if g["responseMimeType"] != "application/json" {
        return None;
    }
    g.get("responseJsonSchema")
        .or_else(|| g.get("responseSchema"))
}

/// A value of the schema's shape: first enum value, 1 for integers, 0 for other numbers,
/// false, empty arrays. Gemini's loop check asks for a number, its confidence that the
/// session is looping (0.0 to 1.0): a scripted session is not, and at 1 Gemini ends it.
/// Its model router asks for an integer score from 1 to 100.
fn sample_of(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match schema["type"]
        .as_str()
        .unwrap_or("")
        .to_ascii_lowercase()
        .as_str()
    {
        "object" => Value::Object(
            schema["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), sample_of(v)))
                .collect(),
        ),
        "integer" => json!(1),
        "number" => json!(0.0),
        "boolean" => json!(false),
        "array" => json!([]),
        _ => json!("simple"),
    }
}

/// Run one session.
pub fn run(spec: &Spec) -> Result<Outcome, String> {
    let log: Arc<Mutex<Vec<(String, Value, u64)>>> = Arc::default();
    let t0 = Instant::now();
    let spec_arc = Arc::new(spec.clone());
    let log2 = log.clone();
    let server = Server::start(Arc::new(move |req: &Request| {
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        if let Ok(mut l) = log2.lock() {
            l.push((
                req.target.clone(),
                body.clone(),
                t0.elapsed().as_millis() as u64,
            ));
        }
        respond(&spec_arc, req, &body)
    }))
    .map_err(|e| format!("fake model: cannot listen on 127.0.0.1: {e}"))?;
    let port = server.port.to_string();
    for (path, text) in &spec.files {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(path, text.replace("{PORT}", &port))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let Some(program) = spec.argv.first() else {
        return Err("spec: empty argv".into());
    };
    let out_dir = tempfile_dir()?;
    let stdout_path = out_dir.join("stdout");
    let stderr_path = out_dir.join("stderr");
    let mut cmd = Command::new(program);
    cmd.args(&spec.argv[1..])
        .env_clear()
        .envs(
            spec.env
                .iter()
                .map(|(k, v)| (k, v.replace("{PORT}", &port))),
        )
        .current_dir(&spec.cwd)
        .stdin(match &spec.stdin {
            Some(text) => {
                let path = out_dir.join("stdin");
                std::fs::write(&path, text).map_err(|e| e.to_string())?;
                Stdio::from(std::fs::File::open(&path).map_err(|e| e.to_string())?)
            }
            None => Stdio::null(),
        })
        .stdout(std::fs::File::create(&stdout_path).map_err(|e| e.to_string())?)
        .stderr(std::fs::File::create(&stderr_path).map_err(|e| e.to_string())?);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let pgid = child.id() as i32;
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if started.elapsed() > spec.timeout => {
                timed_out = true;
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for {program}: {e}")),
        }
    };
    // Nothing the agent started may outlive the session.
    kill_group(pgid);
    let status = match status {
        Some(s) => Some(s),
        None => child.wait().ok(),
    };
    let duration_ms = started.elapsed().as_millis() as u64;
    drop(server);
    let logged = log.lock().map(|l| l.clone()).unwrap_or_default();
    let arrivals_ms = logged.iter().map(|(_, _, t)| *t).collect();
    let requests: Vec<(String, Value)> = logged.into_iter().map(|(p, b, _)| (p, b)).collect();
    let results = requests
        .iter()
        .map(|(_, b)| our_results(spec.wire, b))
        .max_by_key(Vec::len)
        .unwrap_or_default();
    let read = |p: &PathBuf| {
        std::fs::read(p)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let outcome = Outcome {
        exit: if timed_out {
            None
        } else {
            status.and_then(|s| s.code())
        },
        timed_out,
        stdout: read(&stdout_path),
        stderr: read(&stderr_path),
        duration_ms,
        requests,
        arrivals_ms,
        results,
    };
    let _ = std::fs::remove_dir_all(&out_dir);
    Ok(outcome)
}

fn kill_group(pgid: i32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

fn tempfile_dir() -> Result<PathBuf, String> {
    let base = std::env::temp_dir().join(format!(
        "tj-e2e-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&base).map_err(|e| format!("{}: {e}", base.display()))?;
    Ok(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_may_name_its_tool_and_the_last_session() {
        let r = |t: &str| wire::ToolResult {
            call_id: "c".into(),
            text: t.into(),
            is_error: None,
        };
        let (tool, args) = call_args(
            &json!({"__tool": "write_stdin", "session_id": "{SESSION_ID}", "chars": "x"}),
            &[r("Process running with session ID 123\n"), r("no id")],
        );
        assert_eq!(tool.as_deref(), Some("write_stdin"));
        assert_eq!(args, json!({"session_id": 123, "chars": "x"}));
        let (tool, args) = call_args(&json!({"cmd": "ls"}), &[]);
        assert_eq!((tool, args), (None, json!({"cmd": "ls"})));
    }
}
