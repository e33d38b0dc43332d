//! End to end: the real binary in a pseudo-terminal, its screen read through a
//! terminal emulator (vt100).

mod support;

mod changes;
mod colour_depth;
mod contexts;
mod demo;
mod dumb_terminal;
mod filters_views;
mod key_command;
mod palette_bulk;
mod project;
mod refresh_flag;
mod robustness_terminal;
