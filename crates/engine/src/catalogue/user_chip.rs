//! Chips of a user's own: a catalogue chip cloned under a new id ("my H100, at my price
//! and with faster memory"), or an accelerator built from the template, a blank whose
//! required numbers the user fills in. Both then take their numbers through
//! [`Chip::edited`], so every number they set is range-checked and graded `user`; a
//! clone keeps the numbers it did not change with their catalogue sources.

use super::chip::{Chip, ChipEfficiency, MemoryKind, MemoryTier};
use super::edit::ChipField;
use super::Catalogue;
use crate::error::{EngineError, Result};
use crate::limits::{MAX_USER_CHIPS, MAX_USER_CHIP_ID};
use crate::units::{Bytes, BytesPerSecond, FlopsPerSecond};
use std::collections::BTreeMap;

/// What a user chip starts from, as links write it (`from=template` or a chip id).
pub const TEMPLATE: &str = "template";

/// The `form` of a chip from the template, and the start of a clone's (the catalogue id
/// it copies follows): how a chip's record says where a user's chip came from.
const TEMPLATE_FORM: &str = "your own accelerator (from the template)";
const CLONE_FORM: &str = "your copy of ";

/// A user chip: its new id and what it starts from (a catalogue chip's id, or
/// [`TEMPLATE`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserChip<'a> {
    pub id: &'a str,
    pub from: &'a str,
}

/// Checks a new chip id: 1 to [`MAX_USER_CHIP_ID`] lowercase letters, digits and
/// dashes, starting with a letter or digit, and no id the catalogue already holds.
/// Returns the id as the catalogue will hold it.
pub fn check_user_chip_id(id: &str, catalogue: &Catalogue) -> Result<String> {
    let id = id.trim().to_ascii_lowercase();
    let well_formed = !id.is_empty()
        && id.len() <= MAX_USER_CHIP_ID
        && !id.starts_with('-')
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !well_formed {
        return Err(EngineError::InvalidInput(format!(
            "a chip of your own needs an id of 1 to {MAX_USER_CHIP_ID} letters, digits and dashes, found {:?}",
            id.chars().take(40).collect::<String>()
        )));
    }
    if id == TEMPLATE || catalogue.chip_index(&id).is_ok() {
        return Err(EngineError::InvalidInput(format!(
            "the id {id} is taken; give your chip a new one"
        )));
    }
    Ok(id)
}

impl Chip {
    /// The template: a blank accelerator called `id`, with no peaks, memory or links.
    /// It cannot be swept until [`ChipField::REQUIRED`] are set
    /// ([`Chip::missing_required`] names them); unset links fall back to the engine's
    /// PCIe-class link, as for any chip without one.
    pub fn template(id: &str) -> Chip {
        Chip {
            id: id.to_string(),
            name: id.to_string(),
            vendor: "yours".into(),
            form: TEMPLATE_FORM.into(),
            bf16: FlopsPerSecond(0.0),
            fp8: None,
            fp4: None,
            fast: MemoryTier {
                capacity: Bytes(0.0),
                bandwidth: BytesPerSecond(0.0),
            },
            cold: None,
            scale_up: None,
            scale_up_domain: 1,
            scale_out: None,
            tdp: None,
            idle_power: None,
            price: None,
            purchase_price: None,
            efficiency: ChipEfficiency::default(),
            memory_kind: MemoryKind::Dram,
            sm_count: None,
            provenance: BTreeMap::new(),
        }
    }

    /// This chip under a new id: every number and source kept (a clone of an H100 is an
    /// H100 until a number is changed), its name saying where it came from.
    pub fn cloned_as(&self, id: &str) -> Chip {
        Chip {
            id: id.to_string(),
            name: format!("{id} (yours, from {})", self.name),
            form: format!("{CLONE_FORM}{}", self.id),
            ..self.clone()
        }
    }

    /// Where a chip of the user's own came from, read off its record (a bundle carries
    /// records, not the link's keys): the id of the catalogue chip it was cloned from, or
    /// [`TEMPLATE`]; `None` for any other chip.
    pub fn user_origin(&self) -> Option<&str> {
        if self.form == TEMPLATE_FORM {
            return Some(TEMPLATE);
        }
        self.form.strip_prefix(CLONE_FORM)
    }

    /// The required fields this chip has no number for (a template not yet filled in).
    pub fn missing_required(&self) -> Vec<ChipField> {
        ChipField::REQUIRED
            .into_iter()
            .filter(|f| f.get(self).is_none_or(|v| v <= 0.0))
            .collect()
    }
}

impl Catalogue {
    /// The catalogue with the user's chips added (each a clone or a template) and then
    /// the user's numbers in place, on catalogue chips and user chips alike. Refused by
    /// name: more than [`MAX_USER_CHIPS`] chips, an id taken or malformed, a clone of a
    /// chip the catalogue lacks, a number out of range. A template chip missing a
    /// required number is left out, the fields it needs named in
    /// [`Catalogue::problems`].
    pub fn with_user_chips<'e>(
        &self,
        chips: &[UserChip<'_>],
        edits: impl IntoIterator<Item = (&'e str, ChipField, f64)>,
    ) -> Result<Catalogue> {
        if chips.len() > MAX_USER_CHIPS {
            return Err(EngineError::InvalidInput(format!(
                "at most {MAX_USER_CHIPS} chips of your own, found {}",
                chips.len()
            )));
        }
        let mut out = self.clone();
        for c in chips {
            let id = check_user_chip_id(c.id, &out)?;
            let chip = if c.from.trim().eq_ignore_ascii_case(TEMPLATE) {
                Chip::template(&id)
            } else {
                self.chip(c.from)?.cloned_as(&id)
            };
            out.chips.push(chip);
        }
        let mut out = out.with_chip_edits(edits)?;
        // A template chip still being filled in is left out, as a catalogue file that
        // breaks a rule is, and the reason kept in `problems`.
        let mut problems = Vec::new();
        out.chips.retain(|chip| {
            let missing = chip.missing_required();
            if missing.is_empty() {
                return true;
            }
            problems.push(EngineError::InvalidInput(format!(
                "your chip {} needs {} before it can be used",
                chip.id,
                ChipField::names(&missing)
            )));
            false
        });
        out.problems.extend(problems);
        Ok(out)
    }
}

impl ChipField {
    /// "memory (GB), memory_bandwidth (TB/s)".
    pub fn names(fields: &[ChipField]) -> String {
        fields
            .iter()
            .map(|f| format!("{} ({})", f.id(), f.unit()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Grade;

    fn cat() -> &'static Catalogue {
        Catalogue::builtin()
    }

    #[test]
    fn a_clone_is_its_chip_until_a_number_changes() {
        let clone = [UserChip {
            id: "My-H100",
            from: "h100-sxm",
        }];
        let out = cat()
            .with_user_chips(&clone, [("my-h100", ChipField::Price, 1.5)])
            .unwrap();
        let h100 = cat().chip("h100-sxm").unwrap();
        let mine = out.chip("my-h100").unwrap();
        assert_eq!(mine.id, "my-h100");
        // Its record says where it came from; a template's too, a catalogue chip's not.
        assert_eq!(mine.user_origin(), Some("h100-sxm"));
        assert_eq!(Chip::template("x").user_origin(), Some(TEMPLATE));
        assert_eq!(h100.user_origin(), None);
        assert_eq!(mine.bf16, h100.bf16);
        assert_eq!(mine.fast, h100.fast);
        assert_eq!(mine.efficiency, h100.efficiency);
        assert_eq!(
            mine.provenance["bf16_tflops"],
            h100.provenance["bf16_tflops"]
        );
        assert_eq!(ChipField::Price.get(mine), Some(1.5));
        assert_eq!(mine.provenance["price"].grade, Grade::User);
        // The catalogue's H100 is untouched.
        assert_eq!(out.chip("h100-sxm").unwrap(), h100);
        assert_eq!(out.chips.len(), cat().chips.len() + 1);
    }

    #[test]
    fn a_template_chip_needs_its_required_numbers_and_names_those_missing() {
        let chips = [UserChip {
            id: "npu-x",
            from: TEMPLATE,
        }];
        let half = cat()
            .with_user_chips(&chips, [("npu-x", ChipField::Bf16, 500.0)])
            .unwrap();
        assert!(half.chip("npu-x").is_err());
        assert_eq!(half.problems.len(), 1);
        let e = half.problems[0].to_string();
        assert!(e.contains("memory (GB)"), "{e}");
        assert!(e.contains("memory_bandwidth (TB/s)"), "{e}");
        assert!(!e.contains("bf16_tflops"), "{e}");
        let out = cat()
            .with_user_chips(
                &chips,
                [
                    ("npu-x", ChipField::Bf16, 500.0),
                    ("npu-x", ChipField::Memory, 96.0),
                    ("npu-x", ChipField::MemoryBandwidth, 3.0),
                    ("npu-x", ChipField::ScaleUpBandwidth, 400.0),
                    ("npu-x", ChipField::ScaleUpDomain, 8.0),
                ],
            )
            .unwrap();
        let chip = out.chip("npu-x").unwrap();
        assert_eq!(chip.fast.capacity.value(), 96e9);
        assert_eq!(chip.fast.bandwidth.value(), 3e12);
        assert_eq!(chip.scale_up_domain, 8);
        assert_eq!(chip.link_for_group(8).bandwidth.value(), 400e9);
        assert!(chip.price.is_none() && chip.fp8.is_none());
        assert!(chip.provenance.values().all(|p| p.grade == Grade::User
            && p.note.as_deref() == Some("your number; the catalogue has none")));
        assert!(chip.missing_required().is_empty());
    }

    #[test]
    fn refusals_name_what_is_wrong() {
        let one = |id, from| [UserChip { id, from }];
        let err = |chips: &[UserChip], edits: Vec<(&str, ChipField, f64)>| {
            cat().with_user_chips(chips, edits).unwrap_err().to_string()
        };
        assert!(err(&one("h200", "h100-sxm"), vec![]).contains("h200 is taken"));
        assert!(err(&one("a.b", "h100-sxm"), vec![]).contains("letters, digits and dashes"));
        assert!(err(&one("", "h100-sxm"), vec![]).contains("letters, digits and dashes"));
        assert!(err(&one("x", "warp-drive"), vec![]).contains("warp-drive"));
        let e = err(
            &one("x", "h100-sxm"),
            vec![("x", ChipField::MemoryBandwidth, 1e9)],
        );
        assert!(e.contains("memory_bandwidth of x"), "{e}");
        let e = err(
            &one("x", "h100-sxm"),
            vec![("x", ChipField::ScaleUpDomain, 2.5)],
        );
        assert!(e.contains("scale_up_domain of x is a whole number"), "{e}");
        let twice = [
            UserChip {
                id: "x",
                from: "h100-sxm",
            },
            UserChip {
                id: "X",
                from: TEMPLATE,
            },
        ];
        assert!(err(&twice, vec![]).contains("x is taken"));
        let ids: Vec<String> = (0..=MAX_USER_CHIPS).map(|i| format!("c{i}")).collect();
        let many: Vec<UserChip> = ids
            .iter()
            .map(|id| UserChip {
                id: id.as_str(),
                from: "h100-sxm",
            })
            .collect();
        assert!(err(&many, vec![]).contains(&format!("at most {MAX_USER_CHIPS}")));
    }
}
