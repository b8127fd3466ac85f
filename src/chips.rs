//! The chip picker's cards: each chip's key numbers and where they came from, so the
//! page can show a grade badge and the sources behind it.

use crate::format::sig3;
use disagg_engine::catalogue::{Grade, Provenance};
use disagg_engine::Chip;

/// The fields a card shows, with their labels.
const KEY_FIELDS: [(&str, &str); 5] = [
    ("bf16_tflops", "BF16 dense"),
    ("memory", "memory"),
    ("memory_bandwidth", "bandwidth"),
    ("price", "price"),
    ("scale_up_bandwidth", "scale-up link"),
];

/// One sourced number on a card.
#[derive(Clone, Debug, PartialEq)]
pub struct SourcedNumber {
    pub label: &'static str,
    pub value: String,
    pub grade: Grade,
    pub sources: Vec<String>,
    pub note: Option<String>,
    pub formula: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ChipCard {
    pub id: String,
    pub name: String,
    pub vendor: String,
    /// "989 TFLOPS · 141 GB · 4.8 TB/s · $3.50/h".
    pub summary: String,
    /// The weakest grade among the key numbers.
    pub grade: Grade,
    pub numbers: Vec<SourcedNumber>,
}

/// Weaker grades rank higher.
fn weakness(g: Grade) -> u8 {
    match g {
        Grade::Verified => 0,
        Grade::Derived => 1,
        Grade::VendorClaim => 2,
        Grade::Estimate => 3,
        Grade::User => 4,
    }
}

fn shown(p: &Provenance) -> String {
    format!("{} {}", sig3(p.value), p.unit)
}

impl ChipCard {
    pub fn new(chip: &Chip) -> ChipCard {
        let numbers: Vec<SourcedNumber> = KEY_FIELDS
            .iter()
            .filter_map(|(field, label)| {
                let p = chip.provenance.get(*field)?;
                Some(SourcedNumber {
                    label,
                    value: shown(p),
                    grade: p.grade,
                    sources: p.sources.clone(),
                    note: p.note.clone(),
                    formula: p.formula.clone(),
                })
            })
            .collect();
        let grade = numbers
            .iter()
            .map(|n| n.grade)
            .max_by_key(|g| weakness(*g))
            .unwrap_or(Grade::Estimate);
        let mut parts = vec![
            format!("{} TFLOPS", sig3(chip.bf16.value() / 1e12)),
            format!("{} GB", sig3(chip.fast.capacity.value() / 1e9)),
            format!("{} TB/s", sig3(chip.fast.bandwidth.value() / 1e12)),
        ];
        parts.push(match chip.price {
            Some(p) => format!("${}/h", sig3(p.value())),
            None => "no public price".into(),
        });
        ChipCard {
            id: chip.id.clone(),
            name: chip.name.clone(),
            vendor: chip.vendor.clone(),
            summary: parts.join(" · "),
            grade,
            numbers,
        }
    }

    /// The badge's hover text: every key number with its grade and source.
    pub fn tooltip(&self) -> String {
        self.numbers
            .iter()
            .map(|n| {
                format!(
                    "{}: {} ({}; {})",
                    n.label,
                    n.value,
                    n.grade,
                    n.sources.join("; ")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use disagg_engine::Catalogue;

    #[test]
    fn every_chip_has_a_card_with_sourced_key_numbers() {
        for chip in &Catalogue::builtin().chips {
            let card = ChipCard::new(chip);
            assert!(card.numbers.len() >= 3, "{}", chip.id);
            for n in &card.numbers {
                assert!(!n.sources.is_empty(), "{} {}", chip.id, n.label);
                assert!(!n.value.contains("NaN") && !n.value.contains("inf"));
            }
            assert!(card.summary.contains("TB/s"));
            assert!(card.tooltip().contains("BF16 dense"));
        }
    }

    #[test]
    fn the_badge_shows_the_weakest_grade() {
        let cat = Catalogue::builtin();
        for chip in &cat.chips {
            let card = ChipCard::new(chip);
            assert!(card
                .numbers
                .iter()
                .all(|n| weakness(n.grade) <= weakness(card.grade)));
        }
    }
}
