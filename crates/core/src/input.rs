//! The tool-execution input of `reduce-json` and fixtures: camelCase or snake_case keys.
//!
//! `{toolName, command, argv, combinedText | stdout + stderr, exitCode}`, directly or as
//! `{input: {…}, options: {…}}`.

use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolInput {
    pub tool_name: String,
    pub command: Option<String>,
    pub argv: Option<Vec<String>>,
    pub text: String,
    pub exit_code: i32,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOptions {
    pub raw: bool,
    pub no_omit: bool,
    pub trace: bool,
    pub classifier: Option<String>,
    /// The host prints the exit status itself: no `exit N` line in the text.
    pub host_prints_exit: bool,
}

/// A problem with the input JSON: where and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct InputError {
    pub path: String,
    pub message: String,
}

fn get<'a>(obj: &'a serde_json::Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    obj.get(camel)
        .or_else(|| obj.get(snake))
        .filter(|v| !v.is_null())
}

fn err(path: &str, message: impl Into<String>) -> InputError {
    InputError {
        path: path.to_string(),
        message: message.into(),
    }
}

fn string(
    obj: &serde_json::Map<String, Value>,
    camel: &str,
    snake: &str,
    base: &str,
) -> Result<Option<String>, InputError> {
    match get(obj, camel, snake) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(err(&format!("{base}.{camel}"), "must be a string")),
    }
}

fn boolean(
    obj: &serde_json::Map<String, Value>,
    camel: &str,
    snake: &str,
    base: &str,
) -> Result<bool, InputError> {
    match get(obj, camel, snake) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(err(&format!("{base}.{camel}"), "must be true or false")),
    }
}

/// Parse a direct input object or an `{input, options}` envelope.
pub fn parse(v: &Value) -> Result<(ToolInput, ToolOptions), InputError> {
    let Value::Object(top) = v else {
        return Err(err("$", "expected a JSON object with `command` or `argv` and `combinedText` (or `stdout`/`stderr`)"));
    };
    let (input, base, opts) = match top.get("input") {
        Some(Value::Object(inner)) => (inner, "$.input", top.get("options")),
        Some(_) => return Err(err("$.input", "must be an object")),
        None => (top, "$", top.get("options")),
    };
    let mut options = ToolOptions::default();
    match opts {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) => {
            options.raw =
                boolean(o, "raw", "raw", "$.options")? || boolean(o, "full", "full", "$.options")?;
            options.no_omit = boolean(o, "noOmit", "no_omit", "$.options")?;
            options.trace = boolean(o, "trace", "trace", "$.options")?;
            options.classifier = string(o, "classifier", "classifier", "$.options")?;
            options.host_prints_exit =
                boolean(o, "hostPrintsExit", "host_prints_exit", "$.options")?;
        }
        Some(_) => return Err(err("$.options", "must be an object")),
    }
    let tool_name = string(input, "toolName", "tool_name", base)?.unwrap_or_else(|| "exec".into());
    let command = string(input, "command", "command", base)?;
    let argv = match get(input, "argv", "argv") {
        None => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .enumerate()
                .map(|(i, x)| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| err(&format!("{base}.argv[{i}]"), "must be a string"))
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err(err(&format!("{base}.argv"), "must be an array of strings")),
    };
    let text = match string(input, "combinedText", "combined_text", base)? {
        Some(t) => t,
        None => {
            let out = string(input, "stdout", "stdout", base)?.unwrap_or_default();
            let errs = string(input, "stderr", "stderr", base)?.unwrap_or_default();
            match (out.is_empty(), errs.is_empty()) {
                (_, true) => out,
                (true, false) => errs,
                (false, false) => {
                    let sep = if out.ends_with('\n') { "" } else { "\n" };
                    format!("{out}{sep}{errs}")
                }
            }
        }
    };
    let exit_code = match get(input, "exitCode", "exit_code") {
        None => 0,
        Some(Value::Number(n)) => n
            .as_i64()
            .and_then(|x| i32::try_from(x).ok())
            .ok_or_else(|| err(&format!("{base}.exitCode"), "must be an integer"))?,
        Some(_) => return Err(err(&format!("{base}.exitCode"), "must be an integer")),
    };
    if command.is_none() && argv.is_none() && text.is_empty() {
        return Err(err(
            base,
            "nothing to reduce: give `command` or `argv`, and `combinedText` or `stdout`/`stderr`",
        ));
    }
    Ok((
        ToolInput {
            tool_name,
            command,
            argv,
            text,
            exit_code,
        },
        options,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn camel_and_snake() {
        let (a, _) =
            parse(&json!({"toolName":"exec","command":"ls","combinedText":"x","exitCode":2}))
                .unwrap();
        let (b, _) =
            parse(&json!({"tool_name":"exec","command":"ls","combined_text":"x","exit_code":2}))
                .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.exit_code, 2);
    }

    #[test]
    fn envelope_and_streams() {
        let (i, o) = parse(&json!({"input":{"argv":["git","status"],"stdout":"a\n","stderr":"b"},"options":{"noOmit":true,"trace":true}})).unwrap();
        assert_eq!(i.text, "a\nb");
        assert_eq!(i.argv.unwrap(), vec!["git", "status"]);
        assert!(o.no_omit && o.trace);
    }

    #[test]
    fn errors_have_paths() {
        assert_eq!(parse(&json!([1])).unwrap_err().path, "$");
        assert_eq!(parse(&json!({"command": 3})).unwrap_err().path, "$.command");
        assert_eq!(
            parse(&json!({"argv": ["a", 1]})).unwrap_err().path,
            "$.argv[1]"
        );
        assert_eq!(
            parse(&json!({"command":"x","exitCode":"1"}))
                .unwrap_err()
                .path,
            "$.exitCode"
        );
        assert!(parse(&json!({})).is_err());
    }
}
