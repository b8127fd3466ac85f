//! What a scenario chooses of its serving: the framework (one named, `auto` or none),
//! how a pool schedules its batch, and which assumptions the user pinned so that a
//! framework's default does not replace them.

use super::Framework;
use crate::catalogue::Chip;
use serde::{Deserialize, Serialize};

/// The framework a scenario runs: one named, or `auto`, each pool its chip family's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum FrameworkChoice {
    #[default]
    Auto,
    /// No framework's defaults: the global assumptions as they stand.
    Generic,
    Given(Framework),
}

impl FrameworkChoice {
    /// Every choice, `auto` and `generic` first.
    pub fn all() -> impl Iterator<Item = FrameworkChoice> {
        [FrameworkChoice::Auto, FrameworkChoice::Generic]
            .into_iter()
            .chain(Framework::ALL.into_iter().map(FrameworkChoice::Given))
    }

    pub fn id(self) -> &'static str {
        match self {
            FrameworkChoice::Auto => "auto",
            FrameworkChoice::Generic => "generic",
            FrameworkChoice::Given(f) => f.id(),
        }
    }

    /// The framework a pool of `chip` runs. `auto` takes the one each family's vendor
    /// documents for serving: TensorRT-LLM on NVIDIA data-centre GPUs, vLLM on AMD
    /// Instinct, llama.cpp on consumer cards, desktop superchips and Apple silicon;
    /// none (the global assumptions) on every other chip.
    pub fn for_chip(self, chip: &Chip) -> Option<Framework> {
        match self {
            FrameworkChoice::Given(f) => Some(f),
            FrameworkChoice::Generic => None,
            FrameworkChoice::Auto => match chip.vendor.as_str() {
                "Apple" => Some(Framework::LlamaCpp),
                "NVIDIA" if chip.form.contains("consumer") || chip.form.contains("desktop") => {
                    Some(Framework::LlamaCpp)
                }
                "NVIDIA" => Some(Framework::TrtLlm),
                "AMD" => Some(Framework::Vllm),
                _ => None,
            },
        }
    }
}

impl TryFrom<String> for FrameworkChoice {
    type Error = String;
    fn try_from(id: String) -> Result<FrameworkChoice, String> {
        id.parse()
    }
}

impl std::str::FromStr for FrameworkChoice {
    type Err = String;
    fn from_str(id: &str) -> Result<FrameworkChoice, String> {
        FrameworkChoice::all()
            .find(|f| f.id() == id.trim())
            .ok_or_else(|| {
                let ids: Vec<&str> = FrameworkChoice::all().map(|f| f.id()).collect();
                format!("framework {id:?} is not one of {}", ids.join(", "))
            })
    }
}

impl From<FrameworkChoice> for String {
    fn from(f: FrameworkChoice) -> String {
        f.id().to_string()
    }
}

/// How a pool schedules its batch. `Continuous`: a finished sequence's place is
/// refilled at once with a new prompt, whose prefill chunks ride between generation
/// steps (every framework `serving/mod.rs` profiles). `Static`: the batch's prompts are all
/// prefilled first, then it decodes until its longest output ends, with no refill (a
/// fixed batch: llama.cpp's `llama-batched-bench`, Hugging Face `generate` on a batch).
/// `audit/MODEL.md` 6.1.1, `audit/AUDIT.md` "Static batching".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduling {
    #[default]
    Continuous,
    Static,
}

impl Scheduling {
    pub const ALL: [Scheduling; 2] = [Scheduling::Continuous, Scheduling::Static];

    /// The id flags, links and files spell.
    pub fn id(self) -> &'static str {
        match self {
            Scheduling::Continuous => "continuous",
            Scheduling::Static => "static",
        }
    }

    pub fn is_continuous(&self) -> bool {
        *self == Scheduling::Continuous
    }
}

impl std::str::FromStr for Scheduling {
    type Err = String;
    fn from_str(id: &str) -> Result<Scheduling, String> {
        Scheduling::ALL
            .into_iter()
            .find(|s| s.id() == id.trim())
            .ok_or_else(|| format!("scheduling {id:?} is not one of continuous, static"))
    }
}

/// Which assumptions the user stated, so that a framework's default does not
/// replace them: a set of [`crate::assumptions::KNOBS`] indices, written as their names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pinned(u32);

impl Pinned {
    pub const NONE: Pinned = Pinned(0);

    /// The set with the knob `name` added; an unknown name changes nothing.
    pub fn with(self, name: &str) -> Pinned {
        match crate::assumptions::KNOBS
            .iter()
            .position(|k| k.name == name)
        {
            Some(i) => Pinned(self.0 | 1 << i),
            None => self,
        }
    }

    pub fn contains(self, name: &str) -> bool {
        crate::assumptions::KNOBS
            .iter()
            .position(|k| k.name == name)
            .is_some_and(|i| self.has(i))
    }

    /// Whether the knob at `index` of [`crate::assumptions::KNOBS`] is pinned: the
    /// check a sweep's every pool makes, without looking names up
    /// ([`crate::assumptions::knob_index`] finds the index at compile time).
    pub const fn has(self, index: usize) -> bool {
        self.0 & (1 << index) != 0
    }

    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    pub fn names(self) -> Vec<&'static str> {
        crate::assumptions::KNOBS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, k)| k.name)
            .collect()
    }
}

impl Serialize for Pinned {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.names().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Pinned {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Pinned, D::Error> {
        let names = Vec::<String>::deserialize(d)?;
        names.iter().try_fold(Pinned::NONE, |set, name| {
            if crate::assumptions::knob(name).is_some() {
                Ok(set.with(name))
            } else {
                Err(serde::de::Error::custom(format!(
                    "pinned: {name:?} is not an assumption"
                )))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Catalogue;

    fn chip(id: &str) -> &'static Chip {
        Catalogue::builtin().chip(id).unwrap()
    }

    #[test]
    fn auto_takes_each_family_its_documented_framework() {
        let auto = FrameworkChoice::Auto;
        assert_eq!(auto.for_chip(chip("h100-sxm")), Some(Framework::TrtLlm));
        assert_eq!(auto.for_chip(chip("mi300x")), Some(Framework::Vllm));
        assert_eq!(auto.for_chip(chip("rtx-4090")), Some(Framework::LlamaCpp));
        assert_eq!(auto.for_chip(chip("dgx-spark")), Some(Framework::LlamaCpp));
        assert_eq!(auto.for_chip(chip("m2-ultra")), Some(Framework::LlamaCpp));
        assert_eq!(auto.for_chip(chip("tpu-v6e")), None);
        let given = FrameworkChoice::Given(Framework::Sglang);
        assert_eq!(given.for_chip(chip("tpu-v6e")), Some(Framework::Sglang));
        assert_eq!(FrameworkChoice::Generic.for_chip(chip("h100-sxm")), None);
    }

    #[test]
    fn a_choice_reads_back_from_its_id_and_a_bad_one_is_named() {
        for f in FrameworkChoice::all() {
            assert_eq!(f.id().parse::<FrameworkChoice>(), Ok(f));
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(serde_json::from_str::<FrameworkChoice>(&json).unwrap(), f);
        }
        let e = "tgi".parse::<FrameworkChoice>().unwrap_err();
        assert!(e.contains("\"tgi\"") && e.contains("trtllm"), "{e}");
    }

    #[test]
    fn pinned_names_round_trip_and_an_unknown_one_is_refused() {
        let p = Pinned::NONE.with("max_seqs_per_replica").with("mfu");
        assert!(p.contains("mfu") && p.contains("max_seqs_per_replica"));
        assert!(!p.contains("bw_eff"));
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<Pinned>(&json).unwrap(), p);
        let e = serde_json::from_str::<Pinned>(r#"["mfu", "speed"]"#).unwrap_err();
        assert!(e.to_string().contains("speed"));
    }
}
