//! The fixed advisory lock keys (the two-key form, which never meets a
//! workspace's one-key lock): migrations, and the states that snapshots
//! share, and the review log's chain. A leaf, so the schema's steps and the
//! writes both take them without importing each other.

pub(super) const LOCK_CLASS: i32 = 0x7661_6e74; // "vant"
pub(super) const MIGRATION_LOCK: i32 = 1;
pub(super) const STATES_LOCK: i32 = 2;
/// Held by a write that appends to the review log, so entries are chained
/// one after the other.
pub(super) const CHAIN_LOCK: i32 = 3;
