//! Streaming reduction: text helpers, signal detection, shapes, the line engine,
//! structured reducers and rendering.

pub mod again;
pub mod backtrace;
pub mod binary;
pub mod blocks;
pub mod dates;
pub mod engine;
pub mod events;
pub mod json;
pub mod leading;
pub mod paths;
pub mod render;
pub mod shape;
pub mod signal;
pub mod structured;
pub mod suffix;
pub mod text;
pub mod vary;
