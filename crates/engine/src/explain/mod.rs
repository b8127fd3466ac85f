//! Explain chains: a result figure opened into its formula, each input with its value,
//! unit and provenance (a catalogue number with its sources and grade, a config field,
//! an assumption with its default, a workload input, or a derived value with a chain
//! of its own), and the result.
//!
//! A chain's formula is an [`Expr`] over its inputs' symbols: printed for people and
//! evaluated by the tests, which recompute every chain's value from its inputs and
//! check the top chains against the evaluated deployment's figures. The chains are
//! written beside the code that computes each figure (the round in `disagg/round.rs`,
//! the prefill/decode rates in `disagg/prefill_decode/`, money and energy in
//! `disagg/point.rs`, a step in `kernel/`), and each names the section of
//! `audit/MODEL.md` that derives it.

mod expr;

pub use expr::{diff, floor, ln, max, min, num, power, product, quotient, sum, var, Expr};

use crate::assumptions::{knob, Origin};
use crate::catalogue::{Chip, Grade};
use crate::Assumptions;
use serde::{Serialize, Serializer};

/// Where an input's value comes from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Source {
    /// A chip's catalogue number (or the user's, graded `user`).
    Catalogue {
        chip: String,
        field: String,
        grade: Option<Grade>,
        sources: Vec<String>,
        note: Option<String>,
    },
    /// A field of the model's `config.json`, or a count read from its layers.
    Model { field: String },
    /// An input of the scenario: lengths, batch, chips per pool, speculation.
    Workload { field: String },
    /// A modelling constant ([`Assumptions`]), with its default.
    Assumption { name: String, default: f64 },
    /// A layout or count the deployment chose (by the planner, the sweep or the user).
    Deployment { what: String },
    /// A value computed by a rule written out in `audit/MODEL.md` rather than a chain
    /// (a sum over the operator table, the expert-group prefill schedule).
    Rule { rule: String },
    /// A value with a chain of its own.
    Derived { chain: Box<Chain> },
}

impl Source {
    /// `field` of `chip`, with the catalogue's provenance of it.
    pub fn chip(chip: &Chip, field: &str) -> Source {
        let p = chip.provenance.get(field);
        Source::Catalogue {
            chip: chip.name.clone(),
            field: field.to_string(),
            grade: p.map(|p| p.grade),
            sources: p.map(|p| p.sources.clone()).unwrap_or_default(),
            note: p.and_then(|p| p.note.clone()),
        }
    }

    /// The modelling constant `name` (a name of [`crate::assumptions::KNOBS`]).
    pub fn assumption(name: &str) -> Source {
        Source::Assumption {
            name: name.to_string(),
            default: knob(name).map_or(f64::NAN, |k| k.get(&Assumptions::default())),
        }
    }

    /// The source of a pool's value of the knob `name`: the assumption as stated, the
    /// pool's serving framework's default, or the chip's own
    /// ([`Assumptions::origin`]; `a` the pool's assumptions).
    pub fn pool_knob(a: &Assumptions, chip: &Chip, name: &str) -> Source {
        let index = crate::assumptions::KNOBS
            .iter()
            .position(|k| k.name == name);
        if let Some((f, m)) = index.and_then(|i| a.kernel_factor(chip, i)) {
            return Source::rule(format!(
                "the chip's {name} times {m}, {}'s kernel factor (AUDIT, \"Serving frameworks\")",
                f.name()
            ));
        }
        match index.map(|i| a.origin(chip, i)) {
            Some(Origin::Framework(f)) => Source::rule(format!(
                "{}'s default {name}, its serving framework's (AUDIT, \"Serving frameworks\")",
                f.name()
            )),
            Some(Origin::Chip) => Source::chip(chip, name),
            _ => Source::assumption(name),
        }
    }

    pub fn model(field: &str) -> Source {
        Source::Model {
            field: field.to_string(),
        }
    }

    pub fn workload(field: &str) -> Source {
        Source::Workload {
            field: field.to_string(),
        }
    }

    pub fn deployment(what: impl Into<String>) -> Source {
        Source::Deployment { what: what.into() }
    }

    pub fn rule(rule: impl Into<String>) -> Source {
        Source::Rule { rule: rule.into() }
    }

    /// One line for a terminal or a tooltip.
    pub fn describe(&self) -> String {
        match self {
            Source::Catalogue {
                chip,
                field,
                grade,
                sources,
                ..
            } => {
                let grade = grade.map_or("no grade".to_string(), |g| g.to_string());
                let from = sources.first().map_or(String::new(), |s| format!(", {s}"));
                format!("catalogue: {chip} {field} ({grade}{from})")
            }
            Source::Model { field } => format!("model: {field}"),
            Source::Workload { field } => format!("workload: {field}"),
            Source::Assumption { name, default } => {
                format!("assumption {name} (default {})", significant(*default))
            }
            Source::Deployment { what } => format!("deployment: {what}"),
            Source::Rule { rule } => format!("rule: {rule}"),
            Source::Derived { chain } => format!("derived: {}", chain.quantity),
        }
    }
}

/// One input of a chain.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Input {
    /// The symbol the formula uses.
    pub name: String,
    pub meaning: String,
    pub value: f64,
    pub unit: &'static str,
    pub source: Source,
}

/// The host work of one engine step, `t_step + s × t_seq`
/// ([`Assumptions::host_overhead`]), as terms of a sum; its inputs come from
/// [`Chain::with_host_work`].
pub fn host_work() -> [Expr; 2] {
    [var("t_step"), product([var("s"), var("t_seq")])]
}

/// A figure, its formula, its inputs and its value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Chain {
    /// What the figure is ("TPOT", "output $/Mtok").
    pub quantity: String,
    /// The figure's symbol, the left side of the formula.
    pub symbol: String,
    #[serde(serialize_with = "as_text")]
    pub formula: Expr,
    pub inputs: Vec<Input>,
    pub value: f64,
    pub unit: &'static str,
    /// The section of `audit/MODEL.md` that derives the formula ("6.1").
    pub section: &'static str,
}

fn as_text<S: Serializer>(e: &Expr, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&e.to_string())
}

impl Chain {
    /// A chain for `quantity` (symbol `symbol`, in `unit`) whose value the engine
    /// computed as `value` by `formula`; inputs follow.
    pub fn new(
        quantity: &str,
        symbol: &str,
        unit: &'static str,
        section: &'static str,
        formula: Expr,
        value: f64,
    ) -> Chain {
        Chain {
            quantity: quantity.to_string(),
            symbol: symbol.to_string(),
            formula,
            inputs: Vec::new(),
            value,
            unit,
            section,
        }
    }

    /// Adds an input.
    pub fn input(
        mut self,
        name: &str,
        meaning: &str,
        value: f64,
        unit: &'static str,
        source: Source,
    ) -> Chain {
        self.inputs.push(Input {
            name: name.to_string(),
            meaning: meaning.to_string(),
            value,
            unit,
            source,
        });
        self
    }

    /// The request's output length as input `OSL`.
    pub fn with_osl(self, osl: f64) -> Chain {
        self.input(
            "OSL",
            "output tokens per request",
            osl,
            "tokens",
            Source::workload("osl"),
        )
    }

    /// The request's prompt length as input `ISL`.
    pub fn with_isl(self, isl: f64) -> Chain {
        self.input(
            "ISL",
            "prompt tokens per request",
            isl,
            "tokens",
            Source::workload("isl"),
        )
    }

    /// The inputs of [`host_work`] for a step of `seqs` sequences.
    /// `a` the pool's assumptions on `chip`.
    pub fn with_host_work(self, a: &Assumptions, chip: &Chip, seqs: f64) -> Chain {
        self.input(
            "t_step",
            "host work of one engine step",
            a.step_overhead.value(),
            "s",
            Source::pool_knob(a, chip, "step_overhead"),
        )
        .input(
            "s",
            "sequences in the step",
            seqs,
            "sequences",
            Source::deployment("sequences per replica"),
        )
        .input(
            "t_seq",
            "host work per sequence and step",
            a.seq_overhead.value(),
            "s",
            Source::pool_knob(a, chip, "seq_overhead"),
        )
    }

    /// Adds an input that is another chain's result, under that chain's symbol.
    pub fn derived(mut self, meaning: &str, chain: Chain) -> Chain {
        self.inputs.push(Input {
            name: chain.symbol.clone(),
            meaning: meaning.to_string(),
            value: chain.value,
            unit: chain.unit,
            source: Source::Derived {
                chain: Box::new(chain),
            },
        });
        self
    }

    /// The formula evaluated on the inputs' values (`None` when it names a symbol the
    /// chain does not list).
    pub fn recompute(&self) -> Option<f64> {
        self.formula
            .eval(&|name| self.inputs.iter().find(|i| i.name == name).map(|i| i.value))
    }

    /// This chain and every chain below it, depth first.
    pub fn walk(&self) -> Vec<&Chain> {
        let mut out = vec![self];
        for i in &self.inputs {
            if let Source::Derived { chain } = &i.source {
                out.extend(chain.walk());
            }
        }
        out
    }

    /// The chain as a terminal prints it: the formula, then each input on a line,
    /// derived inputs opened below it, indented.
    pub fn render(&self) -> String {
        render_all(std::slice::from_ref(self))
    }

    fn render_into(&self, out: &mut String, depth: usize, shown: &mut Vec<(String, String)>) {
        let pad = "  ".repeat(depth);
        out.push_str(&format!(
            "{pad}{} = {} = {}   [MODEL.md §{}]\n",
            self.symbol,
            self.formula,
            with_unit(self.value, self.unit),
            self.section
        ));
        out.push_str(&format!("{pad}  ({})\n", self.quantity));
        for i in &self.inputs {
            out.push_str(&format!(
                "{pad}    {} = {}: {}; {}\n",
                i.name,
                with_unit(i.value, i.unit),
                i.meaning,
                i.source.describe()
            ));
        }
        for i in &self.inputs {
            if let Source::Derived { chain } = &i.source {
                let key = (chain.symbol.clone(), significant(chain.value));
                if shown.contains(&key) {
                    continue;
                }
                shown.push(key);
                chain.render_into(out, depth + 2, shown);
            }
        }
    }
}

/// Chains as a terminal prints them, each derived chain opened once only: where it
/// comes again, its line above stands for it.
pub fn render_all(chains: &[Chain]) -> String {
    let mut out = String::new();
    let mut shown = Vec::new();
    for c in chains {
        if !out.is_empty() {
            out.push('\n');
        }
        c.render_into(&mut out, 0, &mut shown);
    }
    out
}

fn with_unit(v: f64, unit: &str) -> String {
    match unit {
        "1" => significant(v),
        u => format!("{} {u}", significant(v)),
    }
}

/// A number with six significant digits, without trailing noise.
pub fn significant(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor() as i32;
    if !(-4..6).contains(&magnitude) {
        return format!("{v:.5e}");
    }
    let decimals = (5 - magnitude).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_recomputes_from_its_inputs_and_renders_its_sub_chains() {
        let r = Chain::new(
            "round",
            "R",
            "s",
            "6.1",
            product([var("OSL"), var("t_d")]),
            2.0,
        )
        .input(
            "OSL",
            "output tokens",
            100.0,
            "tokens",
            Source::workload("osl"),
        )
        .input(
            "t_d",
            "decode step",
            0.02,
            "s",
            Source::rule("operator table"),
        );
        let tpot = Chain::new(
            "TPOT",
            "TPOT",
            "s",
            "6.1",
            quotient(var("R"), var("OSL")),
            0.02,
        )
        .derived("the round", r)
        .input(
            "OSL",
            "output tokens",
            100.0,
            "tokens",
            Source::workload("osl"),
        );
        assert_eq!(tpot.recompute(), Some(0.02));
        assert_eq!(tpot.walk().len(), 2);
        let text = tpot.render();
        assert!(text.contains("TPOT = R / OSL = 0.02 s"), "{text}");
        assert!(text.contains("    R = OSL × t_d = 2 s"), "{text}");
        // A formula naming an input the chain does not list cannot be recomputed.
        let broken = Chain::new("x", "x", "s", "6.1", var("y"), 1.0);
        assert_eq!(broken.recompute(), None);
    }

    #[test]
    fn significant_digits() {
        assert_eq!(significant(0.0123456789), "0.0123457");
        assert_eq!(significant(1234.5), "1234.5");
        assert_eq!(significant(2.5e9), "2.50000e9");
        assert_eq!(significant(f64::NAN), "n/a");
    }
}
