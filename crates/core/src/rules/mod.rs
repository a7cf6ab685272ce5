//! Rules: the file format ([`model`]), JS-flavoured regexes ([`jsregex`]), compiled
//! rules ([`compiled`]), built-ins ([`builtin`]) and user/project layers ([`loader`]).

pub mod builtin;
pub mod compiled;
pub mod jsregex;
pub mod loader;
pub mod model;

pub use compiled::CompiledRule;
pub use model::Rule;
