//! tokenjuice-core: pure compaction logic (no processes, no file writes).
