//! Pinned scenarios: up to [`MAX_PINS`] scenarios a user keeps beside the current one
//! to compare, each with a name. The set travels in the page's link under one key,
//! [`PINS_KEY`]; reading it never fails: a bad pin is dropped with a notice naming it.
//!
//! A pin is written as `name.query`, both base64url without padding, pins joined by
//! commas: that alphabet passes the link's percent-encoding untouched, so a pin's own
//! query (with its `&` and `=`) is neither escaped twice nor able to leak into the
//! page's keys. The query holds only the pairs that differ from the default scenario,
//! which keeps a pin of a small change a few dozen characters long.
//!
//! [`table`] reads the pinned sweeps' key figures side by side, with deltas;
//! [`overlay`] turns their frontiers into the chart's dashed lines.

pub mod overlay;
pub mod table;

use crate::scenario::{decode, Scenario, SCHEMA_VERSION};
use crate::ui::Explored;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use disagg_engine::Catalogue;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The link key of the pinned set.
pub const PINS_KEY: &str = "pins";
/// Most scenarios pinned at once: the table stays readable and the chart's dashed
/// lines stay apart.
pub const MAX_PINS: usize = 4;
/// Longest pin name, in characters.
pub const MAX_NAME_CHARS: usize = 60;
/// Longest pin as the link writes it (name and query, encoded). A scenario with a
/// pasted `config.json` can be far longer; it is refused when pinned rather than
/// making a link no browser keeps.
pub const MAX_PIN_CHARS: usize = 4096;

/// One pinned scenario and its name.
#[derive(Clone, Debug, PartialEq)]
pub struct Pin {
    pub name: String,
    pub scenario: Scenario,
}

impl Pin {
    /// A pin of `scenario` under its automatic name.
    pub fn new(scenario: Scenario) -> Pin {
        Pin {
            name: auto_name(&scenario),
            scenario,
        }
    }

    /// The pin as the link writes it.
    pub fn encoded(&self) -> String {
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(self.name.as_bytes()),
            URL_SAFE_NO_PAD.encode(compact_query(&self.scenario).as_bytes())
        )
    }

    /// What the pin's sweep depends on: its scenario without the chart's look, as a
    /// query (the key of its sweep, and what the worker receives).
    pub fn swept(&self) -> Scenario {
        swept(&self.scenario)
    }
}

/// The scenario as a sweep sees it: the y axis and the colours change the drawing,
/// not the sweep.
pub fn swept(s: &Scenario) -> Scenario {
    Scenario {
        y_axis: crate::scenario::YAxis::TokSPerChip,
        colour_by: crate::scenario::ColourBy::Price,
        ..s.clone()
    }
}

/// A short name from the scenario's model, axis, chips and workload:
/// "llama-3.3-70b, prefill/decode, 5 chips, 8192/512".
pub fn auto_name(s: &Scenario) -> String {
    let chips = match s.chips.as_slice() {
        [one] => one.clone(),
        [a, b] => format!("{a} + {b}"),
        many => format!("{} chip kinds", many.len()),
    };
    clean_name(&format!(
        "{}, {}, {chips}, {}/{}",
        s.model,
        s.axis.name(),
        s.isl,
        s.osl
    ))
}

/// A name as the page keeps it: control characters dropped, spaces trimmed, at most
/// [`MAX_NAME_CHARS`] characters.
pub fn clean_name(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .chars()
        .take(MAX_NAME_CHARS)
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// The pairs of the scenario's query that differ from the default scenario's; read
/// back over the defaults they give the scenario again. Should a future default carry
/// a key a scenario omits, the whole query is written instead (checked here, so a
/// pin always reads back as it was).
fn compact_query(s: &Scenario) -> String {
    let full = s.to_query();
    let default = Scenario::default().to_query();
    let defaults: Vec<&str> = default.split('&').collect();
    let pairs: Vec<&str> = full.split('&').filter(|p| !defaults.contains(p)).collect();
    let compact = pairs.join("&");
    let back = Scenario::from_query(&versioned(&compact), Catalogue::builtin()).0;
    if back == *s {
        compact
    } else {
        full
    }
}

fn versioned(query: &str) -> String {
    if query.is_empty() {
        format!("v={SCHEMA_VERSION}")
    } else {
        format!("v={SCHEMA_VERSION}&{query}")
    }
}

/// The link's `pins=...` pair, or nothing without pins.
pub fn link_pair(pins: &[Pin]) -> Option<String> {
    (!pins.is_empty()).then(|| {
        let value: Vec<String> = pins.iter().map(Pin::encoded).collect();
        format!("{PINS_KEY}={}", value.join(","))
    })
}

/// Whether `scenario` can be pinned beside `pins`, or why not.
pub fn can_pin(pins: &[Pin], scenario: &Scenario) -> Result<(), String> {
    if pins.len() >= MAX_PINS {
        return Err(format!(
            "at most {MAX_PINS} pinned scenarios; remove one first"
        ));
    }
    if Pin::new(scenario.clone()).encoded().len() > MAX_PIN_CHARS {
        return Err(format!(
            "this scenario is too long to keep in a link (over {MAX_PIN_CHARS} characters, a pasted config); share it with its own link instead"
        ));
    }
    Ok(())
}

/// Splits the pins off a link's query: the pinned set, the rest of the query as it
/// was, and one notice per pin dropped (each naming the pin by its place and, when
/// readable, its name).
pub fn split_query(query: &str, catalogue: &Catalogue) -> (Vec<Pin>, String, Vec<String>) {
    let mut pins = Vec::new();
    let mut rest = Vec::new();
    let mut notices = Vec::new();
    for pair in query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
        if decode(key) != PINS_KEY {
            rest.push(pair);
            continue;
        }
        if !pins.is_empty() {
            notices.push(format!(
                "ignored a second {PINS_KEY}: a link has one set of pins"
            ));
            continue;
        }
        let (read, dropped) = read_pins(&decode(raw), catalogue);
        pins = read;
        notices.extend(dropped);
    }
    (pins, rest.join("&"), notices)
}

/// The pins of a `pins` value, at most [`MAX_PINS`], and the notices of those dropped.
fn read_pins(value: &str, catalogue: &Catalogue) -> (Vec<Pin>, Vec<String>) {
    let mut pins = Vec::new();
    let mut notices = Vec::new();
    // A hostile link may carry a million commas: only the first few are looked at.
    let mut parts = value.split(',').filter(|p| !p.is_empty());
    for (i, part) in parts.by_ref().take(MAX_PINS).enumerate() {
        match read_pin(part, catalogue) {
            Ok(pin) => pins.push(pin),
            Err((name, why)) => notices.push(match name {
                Some(n) => format!("ignored pin {} ({n:?}): {why}", i + 1),
                None => format!("ignored pin {}: {why}", i + 1),
            }),
        }
    }
    let more = parts.count();
    if more > 0 {
        notices.push(format!(
            "ignored {more} more pins: at most {MAX_PINS} scenarios are pinned at once"
        ));
    }
    (pins, notices)
}

/// One pin, or its name when it could be read and why it was refused.
fn read_pin(part: &str, catalogue: &Catalogue) -> Result<Pin, (Option<String>, String)> {
    if part.len() > MAX_PIN_CHARS {
        return Err((
            None,
            format!("longer than the {MAX_PIN_CHARS} characters a pin may take"),
        ));
    }
    let text = |b64: &str, what: &str| {
        URL_SAFE_NO_PAD
            .decode(b64)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| format!("its {what} is not base64url text"))
    };
    let Some((name, query)) = part.split_once('.') else {
        return Err((None, "not a name and a scenario (name.query)".into()));
    };
    let name = clean_name(&text(name, "name").map_err(|why| (None, why))?);
    let shown = Some(name.chars().take(40).collect::<String>());
    let query = text(query, "scenario").map_err(|why| (shown.clone(), why))?;
    if query.split('&').any(|p| {
        let key = decode(p.split_once('=').map_or(p, |(k, _)| k));
        key == "v" || key == PINS_KEY || key == crate::scenario::POINT_KEY
    }) {
        return Err((
            shown,
            "a pin holds scenario settings only (no version, point or pins)".into(),
        ));
    }
    let (scenario, problems) = Scenario::from_query(&versioned(&query), catalogue);
    if let Some(first) = problems.first() {
        return Err((
            shown,
            format!("its scenario does not read cleanly: {first}"),
        ));
    }
    let name = if name.is_empty() {
        auto_name(&scenario)
    } else {
        name
    };
    Ok(Pin { name, scenario })
}

/// The pinned scenarios' sweeps, by their swept query.
pub type Sweeps = BTreeMap<String, Arc<Explored>>;

/// The scenario whose sweep to ask the worker for next: the first pin without one,
/// unless it is the one `in_flight` (by its swept query) already.
pub fn next_sweep(pins: &[Pin], sweeps: &Sweeps, in_flight: Option<&str>) -> Option<Scenario> {
    let s = pins
        .iter()
        .map(Pin::swept)
        .find(|s| !sweeps.contains_key(&s.to_query()))?;
    (Some(s.to_query().as_str()) != in_flight).then_some(s)
}

/// Drops the sweeps of scenarios no longer pinned.
pub fn keep_pinned(pins: &[Pin], sweeps: &mut Sweeps) {
    let wanted: Vec<String> = pins.iter().map(|p| p.swept().to_query()).collect();
    sweeps.retain(|k, _| wanted.contains(k));
}

/// The sweep of a pin, when it has arrived.
pub fn sweep_of<'a>(pin: &Pin, sweeps: &'a Sweeps) -> Option<&'a Arc<Explored>> {
    sweeps.get(&pin.swept().to_query())
}

#[cfg(test)]
mod tests;
