//! Text forms: position strings and moves. Every reader has a writer beside it.
//!
//! Reading uses nom (its error types stay inside this module); the written forms are the
//! canonical ones of `notation-spec/`.

pub mod diagram;
mod fidchell_fields;
pub mod moves;
pub mod pgn;
pub mod position_string;
pub mod san;
pub mod svg;
pub mod time_control;
pub mod uci;
