//! The model APIs the agents speak, as far as a scripted fake model needs them: answer with
//! one tool call or a final text (streamed or not), and read back the tool results the agent
//! sent, which are exactly what the model would read.

use serde_json::{json, Value};

/// Which API an agent speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// Anthropic Messages (`POST /v1/messages`), Claude Code.
    Anthropic,
    /// OpenAI Chat Completions (`POST …/chat/completions`).
    OpenAiChat,
    /// OpenAI Responses (`POST …/responses`), Codex.
    OpenAiResponses,
    /// Gemini `:streamGenerateContent` / `:generateContent`.
    Gemini,
}

impl Wire {
    pub fn parse(s: &str) -> Option<Wire> {
        Some(match s {
            "anthropic" => Wire::Anthropic,
            "openai-chat" => Wire::OpenAiChat,
            "openai-responses" => Wire::OpenAiResponses,
            "gemini" => Wire::Gemini,
            _ => return None,
        })
    }
}

/// One tool result found in a request.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The call id (Gemini has none: the call's name and position).
    pub call_id: String,
    pub text: String,
    pub is_error: Option<bool>,
}

/// What the model answers now.
pub enum Turn<'a> {
    Call {
        id: String,
        name: &'a str,
        args: &'a Value,
    },
    Text(&'a str),
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => s.clone(),
                _ => i
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| i.to_string()),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other
            .get("output")
            .or_else(|| other.get("llmContent"))
            .or_else(|| other.get("content"))
            .map(text_of)
            .unwrap_or_else(|| other.to_string()),
    }
}

/// The tool results carried by a request body, in order.
pub fn tool_results(wire: Wire, body: &Value) -> Vec<ToolResult> {
    let mut out = Vec::new();
    match wire {
        Wire::Anthropic => {
            for m in body["messages"].as_array().into_iter().flatten() {
                for c in m["content"].as_array().into_iter().flatten() {
                    if c["type"] == "tool_result" {
                        out.push(ToolResult {
                            call_id: c["tool_use_id"].as_str().unwrap_or("").into(),
                            text: text_of(&c["content"]),
                            is_error: c["is_error"].as_bool(),
                        });
                    }
                }
            }
        }
        Wire::OpenAiChat => {
            for m in body["messages"].as_array().into_iter().flatten() {
                if m["role"] == "tool" {
                    out.push(ToolResult {
                        call_id: m["tool_call_id"].as_str().unwrap_or("").into(),
                        text: text_of(&m["content"]),
                        is_error: None,
                    });
                }
            }
        }
        Wire::OpenAiResponses => {
            for i in body["input"].as_array().into_iter().flatten() {
                if i["type"] == "function_call_output" || i["type"] == "custom_tool_call_output" {
                    out.push(ToolResult {
                        call_id: i["call_id"].as_str().unwrap_or("").into(),
                        text: text_of(&i["output"]),
                        is_error: None,
                    });
                }
            }
        }
        Wire::Gemini => {
            for c in body["contents"].as_array().into_iter().flatten() {
                for p in c["parts"].as_array().into_iter().flatten() {
                    if let Some(fr) = p.get("functionResponse") {
                        out.push(ToolResult {
                            call_id: fr["id"]
                                .as_str()
                                .or_else(|| fr["name"].as_str())
                                .unwrap_or("")
                                .into(),
                            text: text_of(&fr["response"]),
                            is_error: None,
                        });
                    }
                }
            }
        }
    }
    out
}

/// Names of the tools a request offers the model.
pub fn tool_names(wire: Wire, body: &Value) -> Vec<String> {
    let mut names = Vec::new();
    match wire {
        Wire::Anthropic | Wire::OpenAiResponses => {
            for t in body["tools"].as_array().into_iter().flatten() {
                if let Some(n) = t["name"]
                    .as_str()
                    .or_else(|| t["function"]["name"].as_str())
                {
                    names.push(n.to_string());
                }
            }
        }
        Wire::OpenAiChat => {
            for t in body["tools"].as_array().into_iter().flatten() {
                if let Some(n) = t["function"]["name"]
                    .as_str()
                    .or_else(|| t["name"].as_str())
                {
                    names.push(n.to_string());
                }
            }
        }
        Wire::Gemini => {
            for t in body["tools"].as_array().into_iter().flatten() {
                for f in t["functionDeclarations"].as_array().into_iter().flatten() {
                    if let Some(n) = f["name"].as_str() {
                        names.push(n.to_string());
                    }
                }
            }
        }
    }
    names
}

fn sse(events: &[(Option<&str>, Value)]) -> String {
    let mut s = String::new();
    for (name, data) in events {
        if let Some(n) = name {
            s.push_str("event: ");
            s.push_str(n);
            s.push('\n');
        }
        s.push_str("data: ");
        s.push_str(&data.to_string());
        s.push_str("\n\n");
    }
    s
}

/// The answer body for a turn: `(content type is SSE, body)`.
pub fn answer(wire: Wire, turn: &Turn<'_>, stream: bool, model: &str) -> (bool, String) {
    match wire {
        Wire::Anthropic => anthropic(turn, stream, model),
        Wire::OpenAiChat => openai_chat(turn, stream, model),
        Wire::OpenAiResponses => (true, openai_responses(turn, model)),
        Wire::Gemini => gemini(turn, stream),
    }
}

fn anthropic(turn: &Turn<'_>, stream: bool, model: &str) -> (bool, String) {
    let usage = json!({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    let (block, stop) = match turn {
        Turn::Call { id, name, args } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": args}),
            "tool_use",
        ),
        Turn::Text(t) => (json!({"type": "text", "text": t}), "end_turn"),
    };
    if !stream {
        let msg = json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": stop, "stop_sequence": null, "usage": usage});
        return (false, msg.to_string());
    }
    let start_block = match turn {
        Turn::Call { id, name, .. } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": {}})
        }
        Turn::Text(_) => json!({"type": "text", "text": ""}),
    };
    let delta = match turn {
        Turn::Call { args, .. } => {
            json!({"type": "input_json_delta", "partial_json": args.to_string()})
        }
        Turn::Text(t) => json!({"type": "text_delta", "text": t}),
    };
    let events = [
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message", "role": "assistant",
                "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": start_block}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ];
    (true, sse(&events))
}

fn openai_chat(turn: &Turn<'_>, stream: bool, model: &str) -> (bool, String) {
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    let (message, finish) = match turn {
        Turn::Call { id, name, args } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}}]}),
            "tool_calls",
        ),
        Turn::Text(t) => (json!({"role": "assistant", "content": t}), "stop"),
    };
    if !stream {
        let v = json!({"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage});
        return (false, v.to_string());
    }
    let chunk = |delta: Value, finish: Value, usage: Value| {
        json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "usage": usage})
    };
    let mut s = sse(&[
        (None, chunk(message, Value::Null, Value::Null)),
        (None, chunk(json!({}), json!(finish), usage)),
    ]);
    s.push_str("data: [DONE]\n\n");
    (true, s)
}

fn openai_responses(turn: &Turn<'_>, model: &str) -> String {
    let item = match turn {
        Turn::Call { id, name, args } => json!({"type": "function_call", "id": format!("fc_{id}"),
            "call_id": id, "name": name, "arguments": args.to_string(), "status": "completed"}),
        Turn::Text(t) => {
            json!({"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": t, "annotations": []}]})
        }
    };
    let response = |status: &str, output: Value| {
        json!({"id": "resp_fake", "object": "response", "created_at": 1, "status": status, "model": model,
            "output": output, "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}})
    };
    sse(&[
        (
            Some("response.created"),
            json!({"type": "response.created", "response": response("in_progress", json!([]))}),
        ),
        (
            Some("response.output_item.added"),
            json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        ),
        (
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            Some("response.completed"),
            json!({"type": "response.completed", "response": response("completed", json!([item]))}),
        ),
    ])
}

fn gemini(turn: &Turn<'_>, stream: bool) -> (bool, String) {
    let part = match turn {
        Turn::Call { id, name, args } => {
            json!({"functionCall": {"id": id, "name": name, "args": args}})
        }
        Turn::Text(t) => json!({"text": t}),
    };
    let v = json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-fake"});
    if stream {
        (true, sse(&[(None, v)]))
    } else {
        (false, v.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_tool_results_of_each_wire() {
        let a = json!({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
            "content": [{"type": "text", "text": "out"}], "is_error": true}]}]});
        assert_eq!(
            tool_results(Wire::Anthropic, &a),
            vec![ToolResult {
                call_id: "c1".into(),
                text: "out".into(),
                is_error: Some(true)
            }]
        );
        let c = json!({"messages": [{"role": "tool", "tool_call_id": "c2", "content": "x"}]});
        assert_eq!(tool_results(Wire::OpenAiChat, &c)[0].text, "x");
        let r =
            json!({"input": [{"type": "function_call_output", "call_id": "c3", "output": "y"}]});
        assert_eq!(tool_results(Wire::OpenAiResponses, &r)[0].call_id, "c3");
        let g = json!({"contents": [{"parts": [{"functionResponse": {"name": "run_shell_command", "response": {"output": "z"}}}]}]});
        assert_eq!(tool_results(Wire::Gemini, &g)[0].text, "z");
    }

    #[test]
    fn a_streamed_anthropic_call_carries_the_arguments() {
        let args = json!({"command": "ls"});
        let (is_sse, body) = answer(
            Wire::Anthropic,
            &Turn::Call {
                id: "c1".into(),
                name: "Bash",
                args: &args,
            },
            true,
            "m",
        );
        assert!(is_sse);
        assert!(body.contains(r#"\"command\":\"ls\""#), "{body}");
        assert!(body.contains("\"stop_reason\":\"tool_use\""));
    }
}
