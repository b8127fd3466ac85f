//! The user's chip numbers and chips of their own in the scenario: link keys
//! `chip.<id>.<field>` (a number, in the field's unit) and `chip.<id>.from` (a chip of
//! their own, cloned from a catalogue chip or started from the template), each checked
//! by the engine's rules as it is applied.

use super::Scenario;
use disagg_engine::catalogue::user_chip::check_user_chip_id;
use disagg_engine::catalogue::{ChipField, UserChip, TEMPLATE};
use disagg_engine::limits::MAX_USER_CHIPS;
use disagg_engine::{Catalogue, Chip};

/// Link keys of the user's chip numbers start so: `chip.<id>.<field>`.
pub const CHIP_EDIT_PREFIX: &str = "chip.";

/// The last part of a user chip's defining link key: `chip.<id>.from=<chip id|template>`.
pub const USER_CHIP_FROM: &str = "from";

impl Scenario {
    /// A chip id the pool may hold: a catalogue chip's (as the catalogue spells it) or a
    /// complete chip of the user's own; otherwise why not.
    pub(super) fn known_chip(&self, id: &str, catalogue: &Catalogue) -> Result<String, String> {
        if let Ok(c) = catalogue.chip(id) {
            return Ok(c.id.clone());
        }
        let id = id.to_ascii_lowercase();
        if !self.user_chips.contains_key(&id) {
            return Err("not in the catalogue nor among your chips".into());
        }
        match self.user_chip_missing(&id) {
            missing if missing.is_empty() => Ok(id),
            missing => Err(format!(
                "your chip needs {} first",
                ChipField::names(&missing)
            )),
        }
    }

    /// The required numbers a user chip from the template still lacks (none for a
    /// clone), by the engine's own rule.
    pub fn user_chip_missing(&self, id: &str) -> Vec<ChipField> {
        match self.user_chips.get(id) {
            Some(from) if from == TEMPLATE => {
                let mut chip = Chip::template(id);
                for f in ChipField::REQUIRED {
                    if let Some(v) = self.chip_edits.get(&(id.to_string(), f)) {
                        chip = chip.edited(f, *v).unwrap_or(chip);
                    }
                }
                chip.missing_required()
            }
            _ => Vec::new(),
        }
    }

    /// The user's chips as the engine takes them.
    pub fn user_chip_list(&self) -> Vec<UserChip<'_>> {
        self.user_chips
            .iter()
            .map(|(id, from)| UserChip {
                id: id.as_str(),
                from: from.as_str(),
            })
            .collect()
    }

    /// Defines (or, with an empty value, removes, with its numbers) a chip of the
    /// user's own: a clone of catalogue chip `from`, or the template.
    fn define_user_chip(
        &mut self,
        id: &str,
        from: &str,
        catalogue: &Catalogue,
    ) -> Result<(), String> {
        let id = id.to_ascii_lowercase();
        if from.is_empty() {
            if self.chips.len() == 1 && self.chips[0] == id {
                return Err("it is the only chip in the pool; pick another first".into());
            }
            self.user_chips.remove(&id);
            self.chip_edits.retain(|(c, _), _| *c != id);
            self.chips.retain(|c| *c != id);
            return Ok(());
        }
        let from = if from.eq_ignore_ascii_case(TEMPLATE) {
            TEMPLATE.to_string()
        } else {
            catalogue.chip(from).map_err(|e| e.to_string())?.id.clone()
        };
        if !self.user_chips.contains_key(&id) {
            if self.user_chips.len() >= MAX_USER_CHIPS {
                return Err(format!(
                    "at most {MAX_USER_CHIPS} chips of your own; remove one first"
                ));
            }
            check_user_chip_id(&id, catalogue).map_err(|e| e.to_string())?;
        }
        self.user_chips.insert(id, from);
        Ok(())
    }

    /// Sets (or, with an empty value, drops) the user's number for a chip field, after
    /// checking it against the field's range on the catalogue's chip (or the user's).
    pub(super) fn edit_chip(
        &mut self,
        key: &str,
        value: &str,
        catalogue: &Catalogue,
    ) -> Result<(), String> {
        let rest = &key[CHIP_EDIT_PREFIX.len()..];
        let (id, field) = rest
            .rsplit_once('.')
            .ok_or("a chip number is chip.<chip id>.<field>")?;
        if field == USER_CHIP_FROM {
            return self.define_user_chip(id, value.trim(), catalogue);
        }
        let field = ChipField::parse(field).map_err(|e| e.to_string())?;
        let user = id.to_ascii_lowercase();
        let id = if self.user_chips.contains_key(&user) {
            user
        } else {
            catalogue.chip(id).map_err(|e| e.to_string())?.id.clone()
        };
        let slot = (id.clone(), field);
        if value.trim().is_empty() {
            let required = self.user_chips.get(&id).is_some_and(|f| f == TEMPLATE)
                && ChipField::REQUIRED.contains(&field);
            if required && self.chips.contains(&id) {
                return Err(format!(
                    "{} is required for a chip from the template; it is in the pool",
                    field.id()
                ));
            }
            self.chip_edits.remove(&slot);
            return Ok(());
        }
        let v: f64 = value
            .trim()
            .parse()
            .map_err(|_| format!("{} is a number in {}", field.id(), field.unit()))?;
        field.check(&id, v).map_err(|e| e.to_string())?;
        self.chip_edits.insert(slot, v);
        Ok(())
    }
}
