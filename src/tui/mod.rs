//! The dashboard.

pub mod action;
pub mod anchored;
pub mod app;
pub mod cursor_addressing;
pub mod effect;
pub mod export;
pub(crate) mod facts;
pub(crate) mod focus;
pub mod keymap;
pub mod launch;
#[cfg(test)]
mod layers;
pub mod nav;
pub mod notice_box;
pub mod ops;
pub mod palette;
pub mod policies;
pub mod registry;
pub mod request;
pub mod review;
pub mod runtime;
pub mod screens;
pub mod services;
pub mod settings;
pub mod sgr16;
pub(crate) mod signals;
pub(crate) mod terminal;
pub mod theme;
pub mod vocab;
pub mod watchlist;
pub(crate) mod widgets;
pub mod workspace_picker;
