//! The dashboard.

pub mod action;
pub mod app;
pub mod effect;
pub mod executor;
pub mod keymap;
pub mod launch;
pub mod nav;
pub mod review;
pub mod runtime;
pub mod screens;
pub mod settings;
pub mod signals;
pub mod terminal;
pub mod theme;
pub mod watchlist;
pub mod widgets;
