//! Errors as values: every way the engine refuses an input, with a message that
//! names what was wrong and what would be accepted.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum EngineError {
    /// A model config could not be turned into the IR.
    Config(String),
    /// An id that is not in the catalogue; `valid` lists the ids that are.
    UnknownId {
        kind: &'static str,
        id: String,
        valid: Vec<String>,
    },
    /// A value outside its domain (zero chips, negative lengths, NaN).
    InvalidInput(String),
    /// A parallelism that cannot be laid out on the model or the chips.
    InvalidParallelism(String),
    /// A catalogue file that breaks the catalogue's rules.
    Catalogue { file: String, problem: String },
    /// A bundle field that cannot be read or is out of bounds, by its path
    /// (`workload.isl`, `chips[1].price`).
    Bundle { field: String, problem: String },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Config(msg) => write!(f, "model config: {msg}"),
            EngineError::UnknownId { kind, id, valid } => {
                write!(
                    f,
                    "unknown {kind} '{id}'; valid {}: {}",
                    plural(kind),
                    valid.join(", ")
                )
            }
            EngineError::InvalidInput(msg) => write!(f, "invalid input: {msg}"),
            EngineError::InvalidParallelism(msg) => write!(f, "invalid parallelism: {msg}"),
            EngineError::Catalogue { file, problem } => write!(f, "catalogue {file}: {problem}"),
            EngineError::Bundle { field, problem } => write!(f, "bundle field {field}: {problem}"),
        }
    }
}

impl std::error::Error for EngineError {}

pub type Result<T> = std::result::Result<T, EngineError>;

/// The plural of an id's kind ("chips", "axes").
fn plural(kind: &str) -> String {
    match kind.strip_suffix("is") {
        Some(stem) => format!("{stem}es"),
        None => format!("{kind}s"),
    }
}

/// A number a user gave, echoed in a refusal as they might have typed it: as written at
/// everyday magnitudes, in scientific notation beyond them (so that 1e300 reads as
/// `1e300`, not as 301 digits), and a non-finite value by its name.
pub fn echoed(v: f64) -> String {
    let everyday = v == 0.0 || (1e-6..1e15).contains(&v.abs());
    if v.is_finite() && everyday {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_ids_list_the_valid_ones_in_plural() {
        let e = EngineError::UnknownId {
            kind: "axis",
            id: "xy".into(),
            valid: vec!["agg".into(), "pd".into()],
        };
        assert_eq!(e.to_string(), "unknown axis 'xy'; valid axes: agg, pd");
        assert_eq!(plural("chip"), "chips");
        assert_eq!(plural("model"), "models");
    }

    #[test]
    fn a_number_is_echoed_short_at_any_magnitude() {
        assert_eq!(echoed(2.5), "2.5");
        assert_eq!(echoed(100.0), "100");
        assert_eq!(echoed(0.0), "0");
        assert_eq!(echoed(-4.0), "-4");
        assert_eq!(echoed(1e300), "1e300");
        assert_eq!(echoed(1e-320), "1e-320");
        assert_eq!(echoed(f64::NAN), "NaN");
        assert_eq!(echoed(f64::INFINITY), "inf");
    }
}
