//! The typed client for the v1 contract, and its wire types.

pub mod model;
