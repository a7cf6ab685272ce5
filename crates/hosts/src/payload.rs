//! Reading a host's hook payload: snake_case (`tool_name`, `tool_input`) or camelCase
//! (`toolName`, `toolInput`, `toolArgs` — sometimes a JSON string).

use serde_json::{Map, Value};

#[derive(Debug, Default)]
pub struct ToolCall {
    pub event: Option<String>,
    pub tool_name: Option<String>,
    pub input: Map<String, Value>,
    pub permission_mode: Option<String>,
}

fn field<'a>(obj: &'a Map<String, Value>, names: &[&str]) -> Option<&'a Value> {
    names
        .iter()
        .find_map(|n| obj.get(*n))
        .filter(|v| !v.is_null())
}

fn string(obj: &Map<String, Value>, names: &[&str]) -> Option<String> {
    field(obj, names)
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// An object, or a string holding a JSON object.
pub fn object(v: &Value) -> Option<Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m.clone()),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        },
        _ => None,
    }
}

pub fn parse(root: &Value) -> Option<ToolCall> {
    let obj = root.as_object()?;
    let input = field(obj, &["tool_input", "toolInput", "toolArgs", "tool_args"])
        .and_then(object)
        .unwrap_or_default();
    Some(ToolCall {
        event: string(obj, &["hook_event_name", "hookEventName"]),
        tool_name: string(obj, &["tool_name", "toolName"]),
        input,
        permission_mode: string(obj, &["permission_mode", "permissionMode"]),
    })
}
