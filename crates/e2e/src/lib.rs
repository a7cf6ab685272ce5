//! # tokenjuice-e2e
//!
//! Drives the real agent CLIs (pinned in `e2e/agents.lock`, installed by
//! `e2e/install-agents`) against a scripted fake model server on 127.0.0.1, and reads back
//! what the agent sent to the model: the tool results are exactly the text the model reads.
//!
//! - [`wire`]: the model APIs (Anthropic Messages, OpenAI Chat and Responses, Gemini).
//! - [`http`]: the minimal server under the fake model.
//! - [`session`]: one agent run: write its config (with the server's port), start it, wait with
//!   a timeout, kill its whole process group, collect the requests.
//! - the `tj-e2e` binary runs one session from a JSON spec; the tests start it inside a network
//!   namespace that has only loopback (`unshare -n`), so nothing can leave the machine.
//! - [`span`]: started under a shell's name, the same binary times the shell an agent starts
//!   for a command (how much tokenjuice's route adds inside the agent, without its noise).

pub mod http;
pub mod report;
pub mod session;
pub mod span;
pub mod wire;
