//! The page's side of a reproducible bundle (`disagg_engine::bundle`): the bundle a
//! scenario describes, which is also what the page sweeps (see [`crate::explore`]),
//! and a bundle read back into a scenario. Plain logic, tested natively.

use crate::scenario::{Scenario, ASSUMPTION_PREFIX, CHIP_EDIT_PREFIX, USER_CHIP_FROM};
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
    b.weights.expert_dtype = s.expert_dtype;
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
    // A count of prompts fixed across the swept batches has no control on the page.
    if w.prompts.is_some() {
        return Err(cli_only("workload.prompts"));
    }
    if b.weights.bits.is_some() {
        return Err(cli_only("weights.bits"));
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
    if a.prefill_two_batch_overlap {
        return Err(cli_only("assumptions.prefill_two_batch_overlap"));
    }
    if a.weight_offload > 0.0 {
        return Err(cli_only("assumptions.weight_offload"));
    }
    if a.host_overlap.is_some() {
        return Err(cli_only("assumptions.host_overlap"));
    }
    set(
        "assumptions.aligned_group_prefill",
        "adp",
        (a.aligned_group_prefill as u8).to_string(),
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
/// kept from `current`) and its selected deployment. Every value passes
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
    Ok((s, b.deployment))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{detail, explore};
    use disagg_engine::disagg::{evaluate, Axis};
    use disagg_engine::sweep::sweep;

    /// A scenario away from the defaults: the user's own config, a chip's price and
    /// bandwidth, two modelling constants, a prefix cache, spread outputs and limits.
    fn unusual() -> Scenario {
        let cat = Catalogue::builtin();
        let mut s = Scenario {
            axis: Axis::PrefillDecode,
            chips: vec!["h200".into(), "mi300x".into()],
            max_chips: 16,
            isl: 4096,
            osl: 300,
            ..Scenario::default()
        };
        for (k, v) in [
            ("cfg", crate::scenario::tests::QWEN25_72B),
            ("model", "custom"),
            ("chip.h200.price", "1.9"),
            ("chip.h200.memory_bandwidth", "5.1"),
            ("a.mfu", "0.52"),
            ("a.step_overhead", "0.00031"),
            ("hit", "30"),
            ("ocv", "0.35"),
            ("ppu", "10"),
            ("ttft", "2000"),
            ("kv", "fp8"),
            ("adp", "1"),
        ] {
            s.apply(k, v, cat).unwrap();
        }
        s
    }

    #[test]
    fn the_downloaded_bundle_sweeps_to_the_pages_own_figures_to_the_last_bit() {
        let cat = Catalogue::builtin();
        let s = unusual();
        let page = explore(&s, cat).unwrap();
        assert!(page.cloud.len() > 20, "{}", page.cloud.len());
        let point = page.cloud[page.throughput.all[0]].spec.clone();
        let text = bundle(&s, cat, Some(point.clone())).unwrap().to_json();
        // What the CLI does with the file: read it, sweep it, predict its point.
        let read = Bundle::read(&text).unwrap();
        let i = read.inputs(cat).unwrap();
        assert_eq!(sweep(&i.request()).unwrap(), page);
        let alone = evaluate(&i.setup(), &i.deployment().unwrap()).unwrap();
        assert_eq!(
            alone.figures,
            detail(&s, &point, cat).unwrap().point.figures
        );
        assert_eq!(alone.figures, page.cloud[page.throughput.all[0]].figures);
        // The user's numbers travel, graded `user`; the model as its text.
        assert_eq!(read.chips[0].price.unwrap().value(), 1.9);
        assert!(matches!(read.model, ModelSource::Config { .. }));
        assert_eq!(read.assumptions.mfu, 0.52);
        assert!(read.assumptions.aligned_group_prefill);
    }

    /// A finite run travels in the link and the bundle on the aggregated axis, lowers the
    /// swept rates there, and is refused by name with one setting alone or on a split
    /// axis.
    #[test]
    fn a_finite_run_travels_in_the_link_and_the_bundle() {
        let cat = Catalogue::builtin();
        let mut s = Scenario {
            axis: Axis::Aggregated,
            osl: 300,
            ..Scenario::default()
        };
        let steady = explore(&s, cat).unwrap();
        s.apply("runn", "2000", cat).unwrap();
        let why = explore(&s, cat).unwrap_err();
        assert!(
            why.contains("both its requests and its longest output"),
            "{why}"
        );
        s.apply("runk", "1000", cat).unwrap();
        assert!(s.to_query().contains("runn=2000") && s.to_query().contains("runk=1000"));
        let run = explore(&s, cat).unwrap();
        let best = |r: &disagg_engine::sweep::SweepResult| {
            r.cloud
                .iter()
                .map(|p| p.figures.output_tok_s_per_chip.value())
                .fold(0.0, f64::max)
        };
        assert!(
            best(&run) < best(&steady),
            "{} vs {}",
            best(&run),
            best(&steady)
        );
        let point = run.cloud[0].spec.clone();
        let text = bundle(&s, cat, Some(point.clone())).unwrap().to_json();
        let (back, selected) = import(&text, &Scenario::default(), cat).unwrap();
        assert_eq!(back.workload(), s.workload());
        assert_eq!(
            (back.run_requests, back.run_longest_output),
            (Some(2000), Some(1000))
        );
        assert_eq!(selected, Some(point));
        // A longest output under the mean, and a split axis, are refused by name.
        s.apply("runk", "200", cat).unwrap();
        let why = explore(&s, cat).unwrap_err();
        assert!(why.contains("longest output"), "{why}");
        s.apply("runk", "1000", cat).unwrap();
        s.apply("axis", "pd", cat).unwrap();
        let why = explore(&s, cat).unwrap_err();
        assert!(why.contains("aggregated"), "{why}");
        for (k, bad) in [
            ("runn", "0"),
            ("runn", "-3"),
            ("runn", "1.5"),
            ("runk", "0"),
            ("runk", "x"),
        ] {
            let why = s.clone().apply(k, bad, cat).unwrap_err();
            assert!(why.contains("finite run"), "{k}={bad}: {why}");
        }
    }

    /// A request rate travels in the link and the bundle, and the panel's answer at that
    /// rate is the one the CLI gives for the downloaded bundle (`predict --bundle`).
    #[test]
    fn a_request_rate_travels_in_the_link_and_the_bundle() {
        use disagg_engine::disagg::open_loop::at_rate;
        use disagg_engine::units::RequestsPerSecond;
        let cat = Catalogue::builtin();
        let mut s = Scenario {
            model: "llama-3.1-8b".into(),
            axis: Axis::Aggregated,
            chips: vec!["h100-sxm".into()],
            max_chips: 4,
            isl: 2000,
            osl: 200,
            ..Scenario::default()
        };
        s.apply("rate", "2.5", cat).unwrap();
        let (link, notices) = Scenario::from_query(&s.to_query(), cat);
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(link, s);
        assert!(s.to_query().contains("rate=2.5"));
        let r = explore(&s, cat).unwrap();
        let i = r.throughput.all[0];
        let point = r.cloud[i].spec.clone();
        let text = bundle(&s, cat, Some(point.clone())).unwrap().to_json();
        let read = Bundle::read(&text).unwrap();
        assert_eq!(read.workload.rate, Some(2.5));
        let (back, selected) = import(&text, &Scenario::default(), cat).unwrap();
        assert_eq!((back.rate, selected), (Some(2.5), Some(point.clone())));
        let inputs = read.inputs(cat).unwrap();
        let cli = at_rate(
            &inputs.setup(),
            &inputs.deployment().unwrap(),
            RequestsPerSecond::new(2.5),
        )
        .unwrap();
        let page = detail(&s, &point, cat).unwrap().point;
        assert_eq!(page.figures, cli.figures);
        assert_eq!(page.ttft, cli.ttft);
        // Delivered: 2.5 requests of 200 tokens a second.
        assert!((page.figures.output_tok_s.value() - 500.0).abs() < 1e-9);
        // Out of bounds, or not a number: refused, naming the field; empty clears it.
        for bad in ["0", "-1", "nan", "inf", "1e8", "fast"] {
            let why = s.clone().apply("rate", bad, cat).unwrap_err();
            assert!(why.contains("request rate"), "{bad}: {why}");
        }
        s.apply("rate", "", cat).unwrap();
        assert_eq!(s.rate, None);
        assert!(!s.to_query().contains("rate="));
    }

    /// Static batches travel in the link and the bundle, and the panel's point is the
    /// CLI's for the downloaded bundle.
    #[test]
    fn static_batching_travels_in_the_link_and_the_bundle() {
        use disagg_engine::serving::Scheduling;
        let cat = Catalogue::builtin();
        let mut s = Scenario {
            model: "llama-3.1-8b".into(),
            axis: Axis::Aggregated,
            chips: vec!["h100-sxm".into()],
            max_chips: 2,
            ..Scenario::default()
        };
        s.apply("sched", "static", cat).unwrap();
        assert!(s.to_query().contains("sched=static"));
        let (link, _) = Scenario::from_query(&s.to_query(), cat);
        assert_eq!(link.scheduling, Scheduling::Static);
        let r = explore(&s, cat).unwrap();
        let point = r.cloud[r.throughput.all[0]].spec.clone();
        let text = bundle(&s, cat, Some(point.clone())).unwrap().to_json();
        let read = Bundle::read(&text).unwrap();
        assert_eq!(read.assumptions.scheduling, Scheduling::Static);
        let i = read.inputs(cat).unwrap();
        let cli = evaluate(&i.setup(), &i.deployment().unwrap()).unwrap();
        let page = detail(&s, &point, cat).unwrap().point;
        assert_eq!(page.figures, cli.figures);
        // Static: the bare decode step between tokens.
        let step = page.pools[0].step;
        assert_eq!(page.figures.tpot, step);
        let (back, _) = import(&text, &Scenario::default(), cat).unwrap();
        assert_eq!(back.scheduling, Scheduling::Static);
        let why = s.apply("sched", "dynamic", cat).unwrap_err();
        assert!(why.contains("scheduling"), "{why}");
    }

    /// Limits on the 90th percentile travel in the bundle: the CLI's sweep of the
    /// downloaded bundle marks the same points, and importing it restores the choice.
    #[test]
    fn limits_at_the_p90_travel_in_the_bundle() {
        use disagg_engine::sweep::{sweep, SloAt};
        let cat = Catalogue::builtin();
        let mut s = Scenario {
            model: "llama-3.1-8b".into(),
            axis: Axis::Aggregated,
            chips: vec!["h100-sxm".into()],
            max_chips: 2,
            ttft_ms: Some(400.0),
            tpot_ms: Some(20.0),
            ..Scenario::default()
        };
        s.apply("sloat", "p90", cat).unwrap();
        let text = bundle(&s, cat, None).unwrap().to_json();
        let read = Bundle::read(&text).unwrap();
        assert_eq!(read.sweep.slo_at, SloAt::P90);
        let i = read.inputs(cat).unwrap();
        let cli = sweep(&i.request()).unwrap();
        let page = explore(&s, cat).unwrap();
        let marks = |r: &disagg_engine::sweep::SweepResult| {
            r.cloud.iter().map(|p| p.meets_slo).collect::<Vec<_>>()
        };
        assert_eq!(marks(&cli), marks(&page));
        let (back, _) = import(&text, &Scenario::default(), cat).unwrap();
        assert_eq!(back.slo_at, SloAt::P90);
    }

    #[test]
    fn an_eagle_head_and_redundant_experts_travel_in_the_link_and_the_bundle() {
        let cat = Catalogue::builtin();
        let mut s = Scenario {
            axis: Axis::Speculative,
            chips: vec!["h200".into()],
            max_chips: 8,
            ..Scenario::default()
        };
        s.apply("draft", "eagle:2", cat).unwrap();
        s.apply("re", "32", cat).unwrap();
        let (link, notices) = Scenario::from_query(&s.to_query(), cat);
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(
            (link.draft_value(), link.redundant_experts),
            ("eagle:2".into(), 32)
        );
        let b = bundle(&s, cat, None).unwrap();
        assert_eq!(b.speculation.eagle_layers, Some(2));
        assert!(b.speculation.draft.is_none());
        assert_eq!(b.assumptions.redundant_experts, 32);
        let (back, _) = import(&b.to_json(), &Scenario::default(), cat).unwrap();
        assert_eq!(
            (back.draft_value(), back.redundant_experts),
            ("eagle:2".into(), 32)
        );
        assert_eq!(back.draft_name(), "an EAGLE head (2 layers)");
        // One layer is the plain `eagle`; bad values are refused and say why.
        s.apply("draft", "eagle:1", cat).unwrap();
        assert_eq!(s.draft_value(), "eagle");
        let why = s.apply("draft", "eagle:0", cat).unwrap_err();
        assert!(why.contains("EAGLE head"), "{why}");
        assert!(s.apply("re", "-1", cat).is_err());
        assert_eq!(s.draft_value(), "eagle");
        s.apply("draft", "mtp", cat).unwrap();
        assert_eq!((s.draft_model.clone(), s.eagle_layers), (None, None));
    }

    #[test]
    fn an_imported_bundle_is_the_scenario_that_wrote_it() {
        let cat = Catalogue::builtin();
        for s in [unusual(), Scenario::default()] {
            let point = explore(&s, cat).unwrap().cloud[3].spec.clone();
            let text = bundle(&s, cat, Some(point.clone())).unwrap().to_json();
            let (back, selected) = import(&text, &Scenario::default(), cat).unwrap();
            // The prefix cache comes back as the share that gives the same tokens.
            assert_eq!(back.workload(), s.workload());
            let back = Scenario {
                prefix_hit_pct: s.prefix_hit_pct,
                ..back
            };
            assert_eq!(back, s);
            assert_eq!(selected, Some(point));
        }
    }

    #[test]
    fn a_bundle_with_chips_of_your_own_imports_them_again() {
        let cat = Catalogue::builtin();
        let mut s = Scenario {
            axis: Axis::Aggregated,
            ..Scenario::default()
        };
        for (key, value) in [
            ("chip.cheap-h200.from", "h200"),
            ("chip.cheap-h200.price", "1.25"),
            ("chip.mine.from", "template"),
            ("chip.mine.bf16_tflops", "500"),
            ("chip.mine.memory", "96"),
            ("chip.mine.memory_bandwidth", "3.2"),
            ("chip.mine.price", "2"),
            ("chips", "h100-sxm,cheap-h200,mine"),
        ] {
            let warnings = s.apply(key, value, cat).unwrap();
            assert!(warnings.is_empty(), "{key}: {warnings:?}");
        }
        let point = explore(&s, cat).unwrap().cloud[0].spec.clone();
        let text = bundle(&s, cat, Some(point.clone())).unwrap().to_json();
        let (back, selected) = import(&text, &Scenario::default(), cat).unwrap();
        assert_eq!(back.user_chips, s.user_chips);
        assert_eq!(back.chip_edits, s.chip_edits);
        assert_eq!(back.chips, s.chips);
        assert_eq!(selected, Some(point));
        // The imported scenario sweeps to the same figures.
        let (a, b) = (explore(&s, cat).unwrap(), explore(&back, cat).unwrap());
        assert_eq!(a.cloud.len(), b.cloud.len());
        assert!(a
            .cloud
            .iter()
            .zip(&b.cloud)
            .all(|(x, y)| x.figures == y.figures));
    }

    #[test]
    fn what_the_page_cannot_hold_is_refused_by_field() {
        let cat = Catalogue::builtin();
        let b = bundle(&Scenario::default(), cat, None).unwrap();
        let cases = [
            (
                Bundle {
                    link: disagg_engine::bundle::LinkSettings {
                        gbps: Some(400.0),
                        id: None,
                        kv_streaming: true,
                    },
                    ..b.clone()
                },
                "link",
            ),
            (
                Bundle {
                    weights: disagg_engine::bundle::Weights {
                        bits: Some(4.5),
                        ..Default::default()
                    },
                    ..b.clone()
                },
                "weights.bits",
            ),
            (
                Bundle {
                    sweep: SweepSettings {
                        target_tok_s_user: Some(5e7),
                        ..b.sweep
                    },
                    ..b.clone()
                },
                "sweep.target_tok_s_user",
            ),
            (
                {
                    let mut c = b.clone();
                    c.assumptions.prefill_two_batch_overlap = true;
                    c
                },
                "assumptions.prefill_two_batch_overlap",
            ),
            (
                {
                    let mut c = b.clone();
                    c.workload.prompts = Some(640);
                    c
                },
                "workload.prompts",
            ),
            (
                {
                    let mut c = b.clone();
                    c.assumptions.weight_offload = 0.5;
                    c
                },
                "assumptions.weight_offload",
            ),
            (
                {
                    let mut c = b.clone();
                    c.assumptions.host_overlap = Some(false);
                    c
                },
                "assumptions.host_overlap",
            ),
            (
                {
                    let mut c = b.clone();
                    c.chips[0].id = "my-chip".into();
                    c
                },
                "chips[0].id",
            ),
            (
                {
                    let mut c = b.clone();
                    c.chips[1].scale_out = None;
                    c
                },
                "chips[1].scale_out",
            ),
        ];
        for (bad, field) in cases {
            let why = import(&bad.to_json(), &Scenario::default(), cat).unwrap_err();
            assert!(why.contains(field), "{field}: {why}");
        }
        let why = import("{}", &Scenario::default(), cat).unwrap_err();
        assert!(why.contains("format"), "{why}");
    }
}
