//! `--bundle FILE` and `--save-bundle FILE`: a bundle read or written, and the bundle
//! the flags of `predict` and `sweep` describe, each flag checked by its own name
//! first. Both commands then run a bundle through the engine's one path
//! (`disagg_engine::bundle`), so a run from flags and a run of the bundle those flags
//! saved print the same figures to the last digit.

use crate::axes::{LinkArgs, PrecisionArgs, SpecArgs};
use crate::lengths::LengthArgs;
use crate::AssumptionArgs;
use disagg_engine::bundle::{Bundle, LinkSettings, ModelSource, SpeculationSettings, Weights};
use disagg_engine::disagg::{Axis, DEFAULT_EAGLE_LAYERS};
use disagg_engine::limits::{
    BITS_PER_WEIGHT, LINK_BYTES_PER_S, MAX_BUNDLE_BYTES, MAX_DRAFT_TOKENS, MAX_EAGLE_LAYERS,
};
use disagg_engine::units::BytesPerSecond;
use disagg_engine::{Catalogue, Chip, DType};
use std::path::Path;

/// Reads a bundle file, bounded before reading; the engine's notes (an older
/// engine's bundle) go to stderr.
pub(crate) fn read(path: &Path) -> Result<Bundle, String> {
    let shown = path.display();
    let size = std::fs::metadata(path)
        .map_err(|e| format!("cannot read bundle '{shown}': {e}"))?
        .len();
    if size > MAX_BUNDLE_BYTES as u64 {
        return Err(format!(
            "bundle '{shown}' is {size} bytes; a bundle is at most {MAX_BUNDLE_BYTES}"
        ));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read bundle '{shown}': {e}"))?;
    let bundle = Bundle::read(&text).map_err(|e| format!("{shown}: {e}"))?;
    for note in bundle.notes() {
        eprintln!("note: {note}");
    }
    Ok(bundle)
}

/// Writes `bundle` to `path` (`--save-bundle`).
pub(crate) fn save(path: &Path, bundle: &Bundle) -> Result<(), String> {
    std::fs::write(path, bundle.to_json() + "\n")
        .map_err(|e| format!("cannot write bundle '{}': {e}", path.display()))
}

/// `--model` or `--draft-model`: a catalogue id, or a path to a config.json, whose text
/// the bundle carries (named by the path, as reports name it).
pub(crate) fn model_source(spec: &str) -> Result<ModelSource, String> {
    let looks_like_path = spec.ends_with(".json") || spec.contains('/') || spec.contains('\\');
    if looks_like_path {
        let text = std::fs::read_to_string(spec)
            .map_err(|e| format!("cannot read config file '{spec}': {e}"))?;
        // Parsed now so that a bad config is refused under its path; the parser's
        // warnings go to stderr, so that --json output stays one document.
        let preset = disagg_engine::ModelPreset::from_user_config(&text)
            .map_err(|e| format!("{spec}: {e}"))?;
        for w in &preset.parse_report.warnings {
            eprintln!("warning: {spec}: {w}");
        }
        return Ok(ModelSource::Config {
            name: spec.to_string(),
            text,
        });
    }
    let preset = Catalogue::builtin()
        .model(spec)
        .map_err(|e| e.to_string())?;
    Ok(ModelSource::Catalogue(preset.id.clone()))
}

pub(crate) fn parse_dtype(s: &str, what: &str) -> Result<DType, String> {
    s.parse::<DType>().map_err(|e| format!("--{what}: {e}"))
}

/// The flags `predict` and `sweep` share: what a bundle holds besides its chips, axis
/// and sweep settings.
pub(crate) struct Flags<'a> {
    pub model: Option<&'a str>,
    pub lengths: &'a LengthArgs,
    pub precision: &'a PrecisionArgs,
    pub spec: &'a SpecArgs,
    pub link: &'a LinkArgs,
    pub assumptions: &'a AssumptionArgs,
}

/// Catalogue chips by id, each once, in the order given.
pub(crate) fn chips<'a>(ids: impl IntoIterator<Item = &'a str>) -> Result<Vec<Chip>, String> {
    let cat = Catalogue::builtin();
    let mut out: Vec<Chip> = Vec::new();
    for id in ids {
        let chip = cat.chip(id.trim()).map_err(|e| e.to_string())?;
        if !out.iter().any(|c| c.id == chip.id) {
            out.push(chip.clone());
        }
    }
    Ok(out)
}

/// The bundle the flags describe, each bound checked under its flag's name.
pub(crate) fn from_flags(f: &Flags, chips: Vec<Chip>, axis: Axis) -> Result<Bundle, String> {
    let model = model_source(f.model.ok_or("--model is required without --bundle")?)?;
    let p = f.precision;
    if let Some(bits) = p.weight_bits {
        if !BITS_PER_WEIGHT.contains(&bits) {
            return Err(format!(
                "--weight-bits {bits:?} must lie between {} and {}",
                BITS_PER_WEIGHT.start(),
                BITS_PER_WEIGHT.end()
            ));
        }
    }
    let weights = Weights {
        dtype: p
            .weight_dtype
            .as_deref()
            .map(|s| parse_dtype(s, "weight-dtype"))
            .transpose()?,
        bits: p.weight_bits,
        expert_dtype: p
            .expert_dtype
            .as_deref()
            .map(|s| parse_dtype(s, "expert-dtype"))
            .transpose()?,
        attn_out_dtype: p
            .attn_out_dtype
            .as_deref()
            .map(|s| parse_dtype(s, "attn-out-dtype"))
            .transpose()?,
        lm_head_dtype: p
            .lm_head_dtype
            .as_deref()
            .map(|s| parse_dtype(s, "lm-head-dtype"))
            .transpose()?,
    };
    let kv_dtype = parse_dtype(&p.kv_dtype, "kv-dtype")?;
    let s = f.spec;
    let eagle = s.draft_model == "eagle";
    let draft = match s.draft_model.as_str() {
        "mtp" | "eagle" => None,
        other => Some(model_source(other)?),
    };
    let eagle_layers = match (eagle, s.eagle_layers) {
        (false, Some(_)) => return Err("--eagle-layers needs --draft-model eagle".into()),
        (false, None) => None,
        (true, layers) => {
            let layers = layers.unwrap_or(DEFAULT_EAGLE_LAYERS);
            if !(1..=MAX_EAGLE_LAYERS).contains(&layers) {
                return Err(format!(
                    "--eagle-layers {layers} must lie between 1 and {MAX_EAGLE_LAYERS}"
                ));
            }
            Some(layers)
        }
    };
    if !(0.0..=1.0).contains(&s.acceptance) {
        return Err(format!(
            "--acceptance {:?} must be a probability from 0 to 1",
            s.acceptance
        ));
    }
    if !(1..=MAX_DRAFT_TOKENS).contains(&s.draft_tokens) {
        return Err(format!(
            "--draft-tokens {} must lie between 1 and {MAX_DRAFT_TOKENS}",
            s.draft_tokens
        ));
    }
    if let Some(id) = &f.link.link {
        disagg_engine::catalogue::Links::builtin()
            .get(id)
            .map_err(|e| format!("--link: {e}"))?;
    }
    if let Some(g) = f.link.link_gbps {
        if !LINK_BYTES_PER_S.contains(&BytesPerSecond::from_gbit_per_s(g).value()) {
            return Err(format!(
                "--link-gbps {g:?} must lie between {} and {} (gigabits per second)",
                LINK_BYTES_PER_S.start() * 8.0 / 1e9,
                LINK_BYTES_PER_S.end() * 8.0 / 1e9
            ));
        }
    }
    let bundle = Bundle {
        weights,
        kv_dtype,
        speculation: SpeculationSettings {
            draft,
            eagle_layers,
            acceptance: s.acceptance,
            draft_tokens: s.draft_tokens,
            speculative_decode: s.speculative_decode,
        },
        link: LinkSettings {
            gbps: f.link.link_gbps,
            id: f.link.link.clone(),
            kv_streaming: !f.link.no_kv_streaming,
        },
        assumptions: f.assumptions.resolve()?,
        ..Bundle::new(model, f.lengths.workload()?, chips, axis)
    };
    experts_exist(&bundle, p, f.assumptions)?;
    Ok(bundle)
}

/// `--expert-dtype` and `--redundant-experts` (above none) name the model's routed
/// experts; on a model without any they would change nothing, so they are refused by
/// name.
fn experts_exist(b: &Bundle, p: &PrecisionArgs, a: &AssumptionArgs) -> Result<(), String> {
    let flag = if p.expert_dtype.is_some() {
        "--expert-dtype"
    } else if a.redundant_experts.is_some_and(|n| n > 0) {
        "--redundant-experts"
    } else {
        return Ok(());
    };
    let inputs = b.inputs(Catalogue::builtin()).map_err(|e| e.to_string())?;
    if inputs.model().ir.is_moe() {
        return Ok(());
    }
    Err(format!(
        "{flag}: {} has no routed experts",
        inputs.model_name()
    ))
}

/// `--save-bundle` when given.
pub(crate) fn save_if(path: &Option<std::path::PathBuf>, bundle: &Bundle) -> Result<(), String> {
    match path {
        Some(p) => save(p, bundle),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every flag of `predict`, `sweep` and `recommend` is held by a bundle (and so
    /// refused alongside `--bundle`), about the output, or the command's own input that no
    /// bundle holds (`recommend`'s demand, limits and search): a flag added later cannot
    /// be silently ignored by a bundle run.
    #[test]
    fn every_input_flag_conflicts_with_bundle() {
        let output = [
            "bundle",
            "save_bundle",
            "json",
            "csv",
            "compare_axes",
            "explain",
            "api",
            "help",
        ];
        let cli = crate::Cli::command();
        for (name, held, own) in [
            ("predict", &crate::PREDICT_BUNDLED[..], &[][..]),
            ("sweep", &crate::sweep::SWEEP_BUNDLED[..], &[][..]),
            (
                "recommend",
                &crate::recommend::RECOMMEND_BUNDLED[..],
                &crate::recommend::RECOMMEND_OWN[..],
            ),
        ] {
            let command = cli.find_subcommand(name).unwrap();
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                assert!(
                    held.contains(&id) || output.contains(&id) || own.contains(&id),
                    "{name} --{id} is neither in a bundle, nor about the output, nor the command's own"
                );
            }
            for id in held.iter().chain(own) {
                assert!(
                    command.get_arguments().any(|a| a.get_id() == id),
                    "{name} has no flag {id}"
                );
            }
        }
    }
}
