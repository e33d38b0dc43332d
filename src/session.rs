//! Placeholder on the `exporter` branch: helper "tuicore" moves `Session`,
//! `SessionError` and `GlobalArgs` here; the lead takes that file at merge.

pub use crate::cli::{GlobalArgs, Session, SessionError};
