//! Sourced values: every catalogue number arrives with its unit, a grade and where it
//! came from, and keeps them so the page can show them next to the number.

use crate::error::EngineError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// How far a number can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grade {
    /// From an official document, or two independent reproductions that agree.
    Verified,
    /// Computed from verified numbers; the formula is recorded.
    Derived,
    /// A vendor's figure that nobody independent has confirmed.
    VendorClaim,
    /// A reasoned guess where nothing trustworthy is published.
    Estimate,
    /// Entered by the user (a pasted config, an edited number): checked for sense, not
    /// against any source.
    User,
}

impl Grade {
    pub fn name(self) -> &'static str {
        match self {
            Grade::Verified => "verified",
            Grade::Derived => "derived",
            Grade::VendorClaim => "vendor-claim",
            Grade::Estimate => "estimate",
            Grade::User => "user",
        }
    }
}

impl fmt::Display for Grade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A number as written in a catalogue file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawValue {
    pub value: f64,
    pub unit: String,
    pub grade: Grade,
    /// Keys into the file's `[sources]` table, comma-separated.
    pub source: String,
    #[serde(default)]
    pub note: Option<String>,
    /// How a `derived` value was computed.
    #[serde(default)]
    pub formula: Option<String>,
}

/// What a value measures, which fixes the units it may be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    FlopRate,
    Bytes,
    ByteRate,
    Time,
    Power,
    Price,
    /// A sum of money (a purchase price).
    Money,
    Count,
    Fraction,
    Params,
}

impl Dimension {
    /// The factor to SI base units (bytes, seconds, FLOP/s, W, USD/h, parameters), or
    /// `None` for a unit this dimension does not accept.
    pub fn si_factor(self, unit: &str) -> Option<f64> {
        let factor = match (self, unit) {
            (Dimension::FlopRate, "TFLOPS" | "TOPS") => 1e12,
            (Dimension::FlopRate, "PFLOPS") => 1e15,
            (Dimension::Bytes, "GB") => 1e9,
            (Dimension::Bytes, "TB") => 1e12,
            (Dimension::Bytes, "MB") => 1e6,
            (Dimension::Bytes, "GiB") => 1024.0 * 1024.0 * 1024.0,
            (Dimension::ByteRate, "GB/s") => 1e9,
            (Dimension::ByteRate, "TB/s") => 1e12,
            (Dimension::ByteRate, "GiB/s") => 1024.0 * 1024.0 * 1024.0,
            (Dimension::ByteRate, "Gb/s") => 1e9 / 8.0,
            (Dimension::Time, "us") => 1e-6,
            (Dimension::Time, "ms") => 1e-3,
            (Dimension::Time, "ns") => 1e-9,
            (Dimension::Power, "W") => 1.0,
            (Dimension::Power, "kW") => 1e3,
            (Dimension::Price, "USD/h") => 1.0,
            (Dimension::Money, "USD") => 1.0,
            (Dimension::Count, "chips") => 1.0,
            (Dimension::Count, "SMs") => 1.0,
            (Dimension::Fraction, "fraction") => 1.0,
            (Dimension::Params, "B") => 1e9,
            (Dimension::Params, "T") => 1e12,
            _ => return None,
        };
        Some(factor)
    }
}

/// A value's provenance, resolved for display: the sources are the full texts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The number as written in the file, in `unit`.
    pub value: f64,
    pub unit: String,
    pub grade: Grade,
    pub sources: Vec<String>,
    pub note: Option<String>,
    pub formula: Option<String>,
}

/// Checks a raw value against its dimension and source table; returns the value in
/// SI units and its provenance.
pub fn resolve(
    file: &str,
    field: &str,
    raw: &RawValue,
    dimension: Dimension,
    sources: &BTreeMap<String, String>,
) -> Result<(f64, Provenance), EngineError> {
    let problem = |problem: String| EngineError::Catalogue {
        file: file.to_string(),
        problem: format!("{field}: {problem}"),
    };
    let factor = dimension
        .si_factor(&raw.unit)
        .ok_or_else(|| problem(format!("unknown unit '{}' for {dimension:?}", raw.unit)))?;
    if !raw.value.is_finite() || raw.value < 0.0 {
        return Err(problem(format!(
            "value {} must be finite and >= 0",
            raw.value
        )));
    }
    let keys: Vec<&str> = raw
        .source
        .split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .collect();
    if keys.is_empty() {
        return Err(problem("has no source".into()));
    }
    let mut texts = Vec::with_capacity(keys.len());
    for key in keys {
        let text = sources
            .get(key)
            .ok_or_else(|| problem(format!("source '{key}' is not in the file's [sources]")))?;
        texts.push(text.clone());
    }
    if raw.grade == Grade::Derived && raw.formula.is_none() {
        return Err(problem("a derived value must give its formula".into()));
    }
    Ok((
        raw.value * factor,
        Provenance {
            value: raw.value,
            unit: raw.unit.clone(),
            grade: raw.grade,
            sources: texts,
            note: raw.note.clone(),
            formula: raw.formula.clone(),
        },
    ))
}
