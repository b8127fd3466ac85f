//! A bundle's chip against a catalogue's chip of the same id: the user's edits
//! ([`ChipField`] values) that turn the one into the other, for a reader such as the
//! page that keeps a user's chip numbers as edits. A difference no edit expresses is
//! refused by field.

use super::refuse;
use crate::catalogue::{Chip, ChipField, Grade};
use crate::error::Result;

/// The numbers of a chip without its provenance (which only says where they came
/// from): what must agree for two records to give the same figures.
fn numbers(c: &Chip) -> serde_json::Value {
    let mut v = serde_json::to_value(c).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.remove("provenance");
    }
    v
}

/// The field's number as the chip holds it (SI units), to compare bit for bit.
fn raw(f: ChipField, c: &Chip) -> Option<f64> {
    match f {
        ChipField::Price => c.price.map(|p| p.value()),
        ChipField::MemoryBandwidth => Some(c.fast.bandwidth.value()),
        ChipField::Memory => Some(c.fast.capacity.value()),
        ChipField::Bf16 => Some(c.bf16.value()),
        ChipField::Fp8 => c.fp8.map(|r| r.value()),
        ChipField::Fp4 => c.fp4.map(|r| r.value()),
        ChipField::Tdp => c.tdp.map(|w| w.value()),
        ChipField::ScaleUpBandwidth => c.scale_up.map(|l| l.bandwidth.value()),
        ChipField::ScaleUpDomain => Some(c.scale_up_domain as f64),
        ChipField::IdlePower => c.idle_power.map(|w| w.value()),
        ChipField::PurchasePrice => c.purchase_price.map(|u| u.value()),
    }
}

/// Adjacent doubles, for a value written in one unit and read back in another.
fn near(v: f64) -> [f64; 3] {
    let b = v.to_bits();
    [
        v,
        f64::from_bits(b.wrapping_add(1)),
        f64::from_bits(b.wrapping_sub(1)),
    ]
}

/// The edits (field, value in the field's unit) that make `base` give `target`'s
/// figures; `at` names the bundle's chip in refusals (`chips[2]`).
pub fn edits_between(at: &str, base: &Chip, target: &Chip) -> Result<Vec<(ChipField, f64)>> {
    let mut chip = base.clone();
    let mut edits = Vec::new();
    for f in ChipField::ALL {
        let want = raw(f, target);
        if want == raw(f, base) {
            continue;
        }
        let Some(v) = f.get(target) else {
            return Err(refuse(
                format!("{at}.{}", f.id()),
                format!("missing, where this catalogue's {} has one", base.id),
            ));
        };
        // The number the user typed (kept in the edit's provenance) converts back to the
        // same bits; a hand-written one may need its neighbours.
        let typed = target
            .provenance
            .get(f.id())
            .filter(|p| p.grade == Grade::User)
            .map(|p| p.value);
        let found = typed
            .into_iter()
            .chain(near(v))
            .filter_map(|c| Some((c, chip.edited(f, c).ok()?)))
            .find(|(_, e)| raw(f, e) == want);
        let Some((value, edited)) = found else {
            return Err(refuse(
                format!("{at}.{}", f.id()),
                format!("{v} {} is not a value a chip number may take", f.unit()),
            ));
        };
        chip = edited;
        edits.push((f, value));
    }
    let (have, want) = (numbers(&chip), numbers(target));
    if have != want {
        let field = want
            .as_object()
            .and_then(|w| {
                w.iter()
                    .find(|(k, v)| have.get(k.as_str()) != Some(v))
                    .map(|(k, _)| k.clone())
            })
            .unwrap_or_default();
        return Err(refuse(
            format!("{at}.{field}"),
            format!(
                "differs from this catalogue's {} in a number a user cannot edit here (only {})",
                base.id,
                ChipField::ALL.map(|f| f.id()).join(", ")
            ),
        ));
    }
    Ok(edits)
}

/// Whether two chip records give the same figures: every number equal to the bit,
/// whatever their provenance says.
pub fn same_numbers(a: &Chip, b: &Chip) -> bool {
    numbers(a) == numbers(b)
}
