//! Disagg Explorer's page: a Leptos client-side app over the engine.
//!
//! The plain logic the page drives lives in modules tested natively: the scenario and
//! its link ([`scenario`]), running it through the engine ([`explore`]), what the
//! chart shows and how ([`chart`]), saved state ([`storage`]) and number formatting
//! ([`format`]). [`ui`] holds thin Leptos components over them and [`web`] the few
//! browser calls (URL, clipboard, timing).

#![forbid(unsafe_code)]
#![deny(unused_must_use)]
#![warn(clippy::dbg_macro, clippy::todo, clippy::print_stdout)]

pub use disagg_engine as engine;

pub mod bundle;
pub mod chains;
pub mod chart;
pub mod chips;
pub mod compare;
pub mod desk;
pub mod effects;
pub mod explore;
pub mod export;
pub mod format;
pub mod jobs;
pub mod launch;
pub mod model_summary;
pub mod open_loop;
pub mod pack;
pub mod perf;
pub mod pins;
pub mod points;
pub mod reality;
pub mod recommend_view;
pub mod scenario;
pub mod storage;
pub mod topology;
pub mod ui;
pub mod validation_view;
pub mod web;
pub mod worker;
