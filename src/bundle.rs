//! The page's side of a reproducible bundle (`disagg_engine::bundle`): the bundle a
//! scenario describes, which is also what the page sweeps (see [`crate::explore`]),
//! and a bundle read back into a scenario. Plain logic, tested natively.

use crate::scenario::{RunSettings, Scenario, ASSUMPTION_PREFIX, CHIP_EDIT_PREFIX, USER_CHIP_FROM};
use disagg_engine::assumptions::KNOBS;
use disagg_engine::bundle::chips::{edits_between, same_numbers};
use disagg_engine::bundle::{Bundle, ModelSource, SpeculationSettings, SweepSettings};
use disagg_engine::catalogue::{TEMPLATE, USER_MODEL_ID};
use disagg_engine::disagg::DeploymentSpec;
use disagg_engine::{Assumptions, Catalogue, Chip, ModelPreset};
use std::borrow::Cow;

/// The file the page's "Download bundle" writes.
pub const FILE_NAME: &str = "disagg-bundle.json";

/// The catalogue the scenario computes with: the user's chips added (clones and
/// template chips) and the user's numbers in place (itself when there are none). The
/// one place these are applied: every computation of the page, the bundle it exports
/// and the chart's names go through here.
pub fn effective<'a>(s: &Scenario, catalogue: &'a Catalogue) -> Result<Cow<'a, Catalogue>, String> {
    if s.chip_edits.is_empty() && s.user_chips.is_empty() {
        return Ok(Cow::Borrowed(catalogue));
    }
    catalogue
        .with_user_chips(
            &s.user_chip_list(),
            s.chip_edits
                .iter()
                .map(|((id, f), v)| (id.as_str(), *f, *v)),
        )
        .map(Cow::Owned)
        .map_err(|e| e.to_string())
}

/// The scenario's model: the catalogue's, or the one its `cfg` describes.
pub(crate) fn target<'a>(
    s: &Scenario,
    catalogue: &'a Catalogue,
) -> Result<Cow<'a, ModelPreset>, String> {
    if s.model != USER_MODEL_ID {
        return catalogue
            .model(&s.model)
            .map(Cow::Borrowed)
            .map_err(|e| e.to_string());
    }
    let text = s
        .custom_config
        .as_deref()
        .ok_or("paste or upload your model's config.json (or choose a catalogue model)")?;
    ModelPreset::from_user_config(text)
        .map(Cow::Owned)
        .map_err(|e| format!("your config.json: {e}"))
}

/// The bundle scenario `s` describes, `point` its selected deployment: the chips as
/// the page's effective catalogue holds them (the user's numbers in place, graded
/// `user`), the model by catalogue id or by the user's config text.
pub fn bundle(
    s: &Scenario,
    catalogue: &Catalogue,
    point: Option<DeploymentSpec>,
) -> Result<Bundle, String> {
    let chips_from = effective(s, catalogue)?;
    let model = target(s, catalogue)?;
    let model = match (&s.custom_config, s.model == USER_MODEL_ID) {
        (Some(text), true) => ModelSource::Config {
            name: model.name.clone(),
            text: text.clone(),
        },
        _ => ModelSource::Catalogue(model.id.clone()),
    };
    let draft = match &s.draft_model {
        Some(id) => Some(ModelSource::Catalogue(
            catalogue.model(id).map_err(|e| e.to_string())?.id.clone(),
        )),
        None => None,
    };
    let chips = s
        .chips
        .iter()
        .map(|id| chips_from.chip(id).cloned().map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    if s.run_requests.is_some() != s.run_longest_output.is_some() {
        return Err(
            "a finite run needs both its requests and its longest output (or neither)".into(),
        );
    }
    let mut b = Bundle::new(model, s.workload(), chips, s.axis);
    b.weights.dtype = s.weight_dtype;
    b.weights.bits = s.run.bits_per_weight;
    b.weights.expert_dtype = s.expert_dtype;
    b.weights.attn_out_dtype = s.attn_out_dtype;
    b.weights.lm_head_dtype = s.lm_head_dtype;
    b.kv_dtype = s.kv_dtype;
    b.speculation = SpeculationSettings {
        draft,
        eagle_layers: s.eagle_layers,
        acceptance: s.acceptance,
        draft_tokens: s.draft_tokens,
        // Only the prefill/decode axis has a decode pool to speculate.
        speculative_decode: s.decode_pool_speculates(),
    };
    b.sweep = SweepSettings {
        axis: s.axis,
        max_chips: s.max_chips,
        batch: s.batch,
        target_tok_s_user: s.target_tok_s_user,
        ttft_ms: s.ttft_ms,
        tpot_ms: s.tpot_ms,
        slo_at: s.slo_at,
    };
    b.assumptions = s.assumptions();
    b.link.id = s.link.clone();
    b.deployment = point;
    Ok(b)
}

/// A number as a link writes it (Rust's shortest form that reads back to the same bits).
fn num(v: f64) -> String {
    format!("{v}")
}

/// The link settings that describe bundle `b`, each with the bundle field it comes
/// from; `Err` for a field the page has no control for.
fn settings(b: &Bundle, catalogue: &Catalogue) -> Result<Vec<(String, String, String)>, String> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    let mut set = |field: &str, key: &str, value: String| {
        out.push((field.to_string(), key.to_string(), value));
    };
    let cli_only = |field: &str| {
        format!("bundle field {field}: the page has no setting for it; run the bundle with `disagg sweep --bundle`")
    };
    match &b.model {
        ModelSource::Catalogue(id) => set("model", "model", id.clone()),
        ModelSource::Config { text, .. } => {
            set("model.config.text", "cfg", text.clone());
            set("model", "model", USER_MODEL_ID.into());
        }
    }
    let w = b.workload;
    set("workload.isl", "isl", w.isl.to_string());
    set("workload.osl", "osl", w.osl.to_string());
    set(
        "workload.cached",
        "hit",
        num(w.cached as f64 / w.isl as f64 * 100.0),
    );
    set("workload.output_cv", "ocv", num(w.output_cv));
    if let Some(r) = w.rate {
        set("workload.rate", "rate", num(r));
    }
    if let Some(m) = w.prompts_per_user {
        set("workload.prompts_per_user", "ppu", num(m));
    }
    if let Some(run) = w.finite_run {
        set(
            "workload.finite_run.requests",
            "runn",
            run.requests.to_string(),
        );
        set(
            "workload.finite_run.longest_output",
            "runk",
            run.longest_output.to_string(),
        );
    }
    set(
        "weights.dtype",
        "wd",
        b.weights
            .dtype
            .map_or("default".into(), |d| d.name().to_string()),
    );
    for (field, key, d) in [
        ("weights.expert_dtype", "ed", b.weights.expert_dtype),
        ("weights.attn_out_dtype", "ao", b.weights.attn_out_dtype),
        ("weights.lm_head_dtype", "hd", b.weights.lm_head_dtype),
    ] {
        set(
            field,
            key,
            d.map_or("default".into(), |d| d.name().to_string()),
        );
    }
    set("kv_dtype", "kv", b.kv_dtype.name().into());
    if b.link.gbps.is_some() || !b.link.kv_streaming {
        return Err(cli_only("link"));
    }
    if let Some(id) = &b.link.id {
        set("link.id", "link", id.clone());
    }
    let sw = b.sweep;
    set("sweep.axis", "axis", sw.axis.id().into());
    // The chips' definitions and numbers come before the list that picks them.
    for (i, chip) in b.chips.iter().enumerate() {
        let at = format!("chips[{i}]");
        let base = match catalogue.chip(&chip.id) {
            Ok(c) => c.clone(),
            Err(_) => {
                let from = chip.user_origin().ok_or_else(|| {
                    format!(
                        "bundle field {at}.id: {} is neither in this page's catalogue nor a chip of your own",
                        chip.id
                    )
                })?;
                set(
                    &format!("{at}.form"),
                    &format!("{CHIP_EDIT_PREFIX}{}.{USER_CHIP_FROM}", chip.id),
                    from.to_string(),
                );
                match from {
                    TEMPLATE => Chip::template(&chip.id),
                    id => catalogue
                        .chip(id)
                        .map_err(|e| format!("bundle field {at}.form: {e}"))?
                        .cloned_as(&chip.id),
                }
            }
        };
        for (field, v) in edits_between(&at, &base, chip).map_err(|e| e.to_string())? {
            set(
                &format!("{at}.{}", field.id()),
                &format!("{CHIP_EDIT_PREFIX}{}.{}", base.id, field.id()),
                num(v),
            );
        }
    }
    set(
        "chips",
        "chips",
        b.chips
            .iter()
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>()
            .join(","),
    );
    set("sweep.max_chips", "budget", sw.max_chips.to_string());
    set(
        "sweep.batch",
        "batch",
        sw.batch.map_or(String::new(), |v| v.to_string()),
    );
    let opt = |v: Option<f64>| v.map_or(String::new(), num);
    set(
        "sweep.target_tok_s_user",
        "target",
        opt(sw.target_tok_s_user),
    );
    set("sweep.ttft_ms", "ttft", opt(sw.ttft_ms));
    set("sweep.tpot_ms", "tpot", opt(sw.tpot_ms));
    set("sweep.slo_at", "sloat", sw.slo_at.id().into());
    let sp = &b.speculation;
    match (&sp.draft, sp.eagle_layers) {
        (None, None) => set("speculation.draft", "draft", "mtp".into()),
        (None, Some(n)) => set("speculation.eagle_layers", "draft", format!("eagle:{n}")),
        (Some(ModelSource::Catalogue(id)), _) => set("speculation.draft", "draft", id.clone()),
        (Some(ModelSource::Config { .. }), _) => return Err(cli_only("speculation.draft.config")),
    }
    set("speculation.acceptance", "acc", num(sp.acceptance));
    set("speculation.draft_tokens", "k", sp.draft_tokens.to_string());
    set(
        "speculation.speculative_decode",
        "sd",
        (sp.speculative_decode as u8).to_string(),
    );
    let a = &b.assumptions;
    let run = RunSettings::of(b.weights.bits, &w, a);
    for (field, key) in [
        ("workload.prompts", "np"),
        ("weights.bits", "bpw"),
        ("assumptions.host_overlap", "hov"),
        ("assumptions.scheduler_recv_interval", "rcv"),
        ("assumptions.prefill_two_batch_overlap", "tbo"),
        ("assumptions.weight_offload", "offload"),
    ] {
        if let Some(v) = run.value(key) {
            set(field, key, v);
        }
    }
    set(
        "assumptions.aligned_group_prefill",
        "adp",
        (a.aligned_group_prefill as u8).to_string(),
    );
    set(
        "assumptions.expert_exchange",
        "xchg",
        a.expert_exchange.id().to_string(),
    );
    set("assumptions.framework", "fw", a.framework.id().to_string());
    set(
        "assumptions.scheduling",
        "sched",
        a.scheduling.id().to_string(),
    );
    set(
        "assumptions.redundant_experts",
        "re",
        a.redundant_experts.to_string(),
    );
    let defaults = Assumptions::default();
    for k in &KNOBS {
        let v = k.get(a);
        if v != k.get(&defaults) || a.pinned.contains(k.name) {
            set(
                &format!("assumptions.{}", k.name),
                &format!("{ASSUMPTION_PREFIX}{}", k.name),
                num(v),
            );
        }
    }
    Ok(out)
}

/// A bundle's text read into a scenario (its view settings, the y axis and colours,
/// kept from `current`) and its selected deployment, which the scenario shows beside
/// its sweep (`Scenario::show`). Every value passes
/// [`Scenario::apply`], as a link's would; a refusal names the bundle field. The
/// scenario is then checked to describe the same bundle, so the page's numbers are
/// the bundle's.
pub fn import(
    text: &str,
    current: &Scenario,
    catalogue: &Catalogue,
) -> Result<(Scenario, Option<DeploymentSpec>), String> {
    let b = Bundle::read(text).map_err(|e| e.to_string())?;
    let mut s = Scenario {
        y_axis: current.y_axis,
        colour_by: current.colour_by,
        ..Scenario::default()
    };
    for (field, key, value) in settings(&b, catalogue)? {
        let warnings = s
            .apply(&key, &value, catalogue)
            .map_err(|why| format!("bundle field {field}: {why}"))?;
        if let Some(w) = warnings.first() {
            return Err(format!("bundle field {field}: {w}"));
        }
    }
    let again = Bundle {
        // An older engine's bundle is read as this engine would write it.
        engine_version: b.engine_version.clone(),
        ..bundle(&s, catalogue, b.deployment.clone())?
    };
    let same_chips = again.chips.len() == b.chips.len()
        && again
            .chips
            .iter()
            .zip(&b.chips)
            .all(|(x, y)| same_numbers(x, y));
    let rest_differs = Bundle {
        chips: b.chips.clone(),
        ..again.clone()
    } != b;
    if !same_chips || rest_differs {
        let field = [
            ("model", again.model != b.model),
            ("workload", again.workload != b.workload),
            ("speculation", again.speculation != b.speculation),
            ("assumptions", again.assumptions != b.assumptions),
            ("chips", !same_chips),
            ("sweep", again.sweep != b.sweep),
        ]
        .into_iter()
        .find(|(_, differs)| *differs)
        .map_or("(the file)", |(f, _)| f);
        return Err(format!(
            "bundle field {field}: the page cannot hold this value exactly; run the bundle with `disagg sweep --bundle`"
        ));
    }
    // The sweep draws the bundle's deployment whether or not it keeps it.
    s.show = b.deployment.clone();
    Ok((s, b.deployment))
}

/// A selected deployment in words: "8 x rtx-pro-6000 (TP8) at batch 375".
pub(crate) fn deployment_words(spec: &DeploymentSpec) -> String {
    let pools = spec
        .pools
        .iter()
        .map(|p| format!("{} x {} ({})", p.parallelism.chips(), p.chip, p.parallelism))
        .collect::<Vec<_>>()
        .join(" + ");
    format!("{pools} at batch {}", spec.batch)
}

/// The notice for a selected deployment that the sweep of its scenario did not keep
/// (its layout or batch is not among those the sweep tries, or it lies under its
/// chips' frontier): it is drawn beside the sweep's points and selected.
pub fn drawn_beside(spec: &DeploymentSpec) -> String {
    format!(
        "the bundle's deployment ({}) is not among the points this sweep keeps (its layout or batch is not one the sweep tries, or it lies under its chips' frontier): it is drawn beside them, selected, on no frontier",
        deployment_words(spec)
    )
}

/// The notice for a selected deployment its scenario's sweep could not draw (the
/// sweep's notes say why): the scenario is loaded, and the CLI runs the bundle.
pub fn not_drawn(spec: &DeploymentSpec) -> String {
    format!(
        "the bundle's deployment ({}) is not drawn (the sweep's notes say why); its scenario is loaded, and `disagg predict --bundle` runs the deployment itself",
        deployment_words(spec)
    )
}

#[cfg(test)]
#[path = "bundle_tests.rs"]
mod tests;
