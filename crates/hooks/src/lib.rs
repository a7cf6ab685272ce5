//! tokenjuice-hooks
pub mod clock;
pub mod dialects;
pub mod engine;
pub mod error;
pub mod events;
pub mod handler;
pub mod matcher;
pub mod payload;
