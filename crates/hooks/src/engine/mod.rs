pub mod command_runner;
pub mod discovery;
