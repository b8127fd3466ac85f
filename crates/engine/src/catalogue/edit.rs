//! A user's own numbers for catalogue chips ("my H100 costs $1.90 an hour", "this
//! part has 4.8 TB/s"): one field replaced, checked for sense, graded `user`, with the
//! catalogue's own value kept in its note. The field names are the chip files' own.

use super::chip::{Chip, Link, DEFAULT_SCALE_UP_LATENCY};
use super::provenance::{Grade, Provenance};
use super::Catalogue;
use crate::error::{EngineError, Result};
use crate::units::{Bytes, BytesPerSecond, FlopsPerSecond, Usd, UsdPerHour, Watts};
use std::ops::RangeInclusive;

/// A chip number a user may replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChipField {
    Price,
    MemoryBandwidth,
    Memory,
    Bf16,
    Fp8,
    Fp4,
    Tdp,
    ScaleUpBandwidth,
    ScaleUpDomain,
    /// Power with nothing running (`cost::idle_power`, MODEL.md 6.6.1).
    IdlePower,
    /// List price of one chip, for ownership figures (MODEL.md 6.6.2).
    PurchasePrice,
}

impl ChipField {
    pub const ALL: [ChipField; 11] = [
        ChipField::Price,
        ChipField::MemoryBandwidth,
        ChipField::Memory,
        ChipField::Bf16,
        ChipField::Fp8,
        ChipField::Fp4,
        ChipField::Tdp,
        ChipField::ScaleUpBandwidth,
        ChipField::ScaleUpDomain,
        ChipField::IdlePower,
        ChipField::PurchasePrice,
    ];

    /// The fields a chip cannot do without: a chip from the template must be given
    /// these before it can be swept.
    pub const REQUIRED: [ChipField; 3] = [
        ChipField::Bf16,
        ChipField::Memory,
        ChipField::MemoryBandwidth,
    ];

    /// The field's name in the chip files (and in links).
    pub fn id(self) -> &'static str {
        match self {
            ChipField::Price => "price",
            ChipField::MemoryBandwidth => "memory_bandwidth",
            ChipField::Memory => "memory",
            ChipField::Bf16 => "bf16_tflops",
            ChipField::Fp8 => "fp8_tflops",
            ChipField::Fp4 => "fp4_tflops",
            ChipField::Tdp => "tdp",
            ChipField::ScaleUpBandwidth => "scale_up_bandwidth",
            ChipField::ScaleUpDomain => "scale_up_domain",
            ChipField::IdlePower => "idle_power",
            ChipField::PurchasePrice => "purchase_price",
        }
    }

    /// The unit a user writes the number in.
    pub fn unit(self) -> &'static str {
        match self {
            ChipField::Price => "$/hour",
            ChipField::MemoryBandwidth => "TB/s",
            ChipField::Memory => "GB",
            ChipField::Bf16 | ChipField::Fp8 | ChipField::Fp4 => "TFLOPS",
            ChipField::Tdp | ChipField::IdlePower => "W",
            ChipField::ScaleUpBandwidth => "GB/s",
            ChipField::ScaleUpDomain => "chips",
            ChipField::PurchasePrice => "USD",
        }
    }

    /// Values that make sense, in [`ChipField::unit`]: wide enough for any chip that
    /// exists or is announced, narrow enough to catch a slipped unit.
    pub fn range(self) -> RangeInclusive<f64> {
        match self {
            ChipField::Price => 0.01..=10_000.0,
            // A wafer's on-chip SRAM reaches 21,000 TB/s (Cerebras WSE-3).
            ChipField::MemoryBandwidth => 0.01..=100_000.0,
            ChipField::Memory => 0.1..=1_000_000.0,
            ChipField::Bf16 | ChipField::Fp8 | ChipField::Fp4 => 0.1..=1_000_000.0,
            ChipField::Tdp => 1.0..=100_000.0,
            ChipField::ScaleUpBandwidth => 0.1..=1_000_000.0,
            ChipField::ScaleUpDomain => 1.0..=1_000_000.0,
            ChipField::IdlePower => 0.0..=100_000.0,
            ChipField::PurchasePrice => 1.0..=1e8,
        }
    }

    /// Refuses a value outside the field's range (or a fractional count), naming the
    /// field and the chip.
    pub fn check(self, chip: &str, value: f64) -> Result<()> {
        let range = self.range();
        if !range.contains(&value) {
            return Err(EngineError::InvalidInput(format!(
                "{} of {chip} must lie between {} and {} {}",
                self.id(),
                range.start(),
                range.end(),
                self.unit()
            )));
        }
        if self == ChipField::ScaleUpDomain && value.fract() != 0.0 {
            return Err(EngineError::InvalidInput(format!(
                "{} of {chip} is a whole number of chips",
                self.id()
            )));
        }
        Ok(())
    }

    pub fn parse(id: &str) -> Result<ChipField> {
        ChipField::ALL
            .into_iter()
            .find(|f| f.id() == id)
            .ok_or_else(|| EngineError::UnknownId {
                kind: "chip field",
                id: id.to_string(),
                valid: ChipField::ALL.iter().map(|f| f.id().to_string()).collect(),
            })
    }

    /// The chip's number, in [`ChipField::unit`] (`None` where the chip has none).
    pub fn get(self, chip: &Chip) -> Option<f64> {
        match self {
            ChipField::Price => chip.price.map(|p| p.value()),
            ChipField::MemoryBandwidth => Some(chip.fast.bandwidth.value() / 1e12),
            ChipField::Memory => Some(chip.fast.capacity.value() / 1e9),
            ChipField::Bf16 => Some(chip.bf16.value() / 1e12),
            ChipField::Fp8 => chip.fp8.map(|f| f.value() / 1e12),
            ChipField::Fp4 => chip.fp4.map(|f| f.value() / 1e12),
            ChipField::Tdp => chip.tdp.map(|w| w.value()),
            ChipField::ScaleUpBandwidth => chip.scale_up.map(|l| l.bandwidth.value() / 1e9),
            ChipField::ScaleUpDomain => Some(chip.scale_up_domain as f64),
            ChipField::IdlePower => chip.idle_power.map(|w| w.value()),
            ChipField::PurchasePrice => chip.purchase_price.map(|u| u.value()),
        }
    }
}

impl Chip {
    /// The chip with `field` set to `value` (in the field's unit), graded `user`.
    pub fn edited(&self, field: ChipField, value: f64) -> Result<Chip> {
        field.check(&self.id, value)?;
        let mut chip = self.clone();
        match field {
            ChipField::Price => chip.price = Some(UsdPerHour::new(value)),
            ChipField::MemoryBandwidth => {
                chip.fast.bandwidth = BytesPerSecond::from_gb_per_s(value * 1e3)
            }
            ChipField::Memory => chip.fast.capacity = Bytes::from_gb(value),
            ChipField::Bf16 => chip.bf16 = FlopsPerSecond::from_tflops(value),
            ChipField::Fp8 => chip.fp8 = Some(FlopsPerSecond::from_tflops(value)),
            ChipField::Fp4 => chip.fp4 = Some(FlopsPerSecond::from_tflops(value)),
            ChipField::Tdp => chip.tdp = Some(Watts::new(value)),
            ChipField::ScaleUpBandwidth => {
                chip.scale_up = Some(Link {
                    bandwidth: BytesPerSecond::from_gb_per_s(value),
                    latency: self
                        .scale_up
                        .map_or(DEFAULT_SCALE_UP_LATENCY, |l| l.latency),
                })
            }
            ChipField::ScaleUpDomain => chip.scale_up_domain = value as u32,
            ChipField::IdlePower => chip.idle_power = Some(Watts::new(value)),
            ChipField::PurchasePrice => chip.purchase_price = Some(Usd::new(value)),
        }
        // A field with no provenance has no catalogue number behind it (a chip from the
        // template, or a price the catalogue lacks).
        let was = match (self.provenance.get(field.id()), field.get(self)) {
            (Some(p), Some(v)) if p.grade != Grade::User => format!("says {v} {}", field.unit()),
            _ => "has none".to_string(),
        };
        chip.provenance.insert(
            field.id().to_string(),
            Provenance {
                value,
                unit: field.unit().to_string(),
                grade: Grade::User,
                sources: Vec::new(),
                note: Some(format!("your number; the catalogue {was}")),
                formula: None,
            },
        );
        Ok(chip)
    }
}

impl Catalogue {
    /// The catalogue with the user's numbers in place of its own; an edit of a chip it
    /// does not hold, or a value out of its field's range, is refused by name.
    pub fn with_chip_edits<'e>(
        &self,
        edits: impl IntoIterator<Item = (&'e str, ChipField, f64)>,
    ) -> Result<Catalogue> {
        let mut out = self.clone();
        for (id, field, value) in edits {
            let i = out.chip_index(id)?;
            out.chips[i] = out.chips[i].edited(field, value)?;
        }
        Ok(out)
    }
}
