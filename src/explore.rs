//! From a [`Scenario`] to the engine: the sweep the chart draws and the full
//! evaluation of one point the detail panel opens. Plain logic, tested natively.

use crate::bundle::{bundle, target};
use crate::scenario::Scenario;
use disagg_engine::bundle::{Bundle, Inputs};
use disagg_engine::cost::api;
use disagg_engine::disagg::explain::{explain, Explained};
use disagg_engine::disagg::open_loop_explain::explain_at_rate;
use disagg_engine::disagg::{
    evaluate, expected_tokens, without_speculation, Axis, DeploymentPoint, DeploymentSpec, Figures,
    Setup,
};
use disagg_engine::sweep::{compare_axes, sweep, AxisBest, SweepRequest, SweepResult};
use disagg_engine::units::{RequestsPerSecond, TokensPerSecond};
use disagg_engine::{Catalogue, ModelPreset};
use std::borrow::Cow;

/// A bundle's models read, or the sentence the page shows.
fn inputs<'a>(b: &'a Bundle, catalogue: &'a Catalogue) -> Result<Inputs<'a>, String> {
    b.inputs(catalogue).map_err(|e| e.to_string())
}

/// Whether the scenario's model routes tokens to experts: only then do the
/// attention/expert axis and the expert-group prefill setting apply. A model the
/// catalogue does not hold counts as dense (the sweep then names the unknown id).
pub fn model_is_moe(s: &Scenario, catalogue: &Catalogue) -> bool {
    target(s, catalogue).is_ok_and(|m| m.ir.is_moe())
}

/// The scenario's model, for its summary (`None` with the reason when it cannot be read).
pub fn model_of(s: &Scenario, catalogue: &Catalogue) -> Result<ModelPreset, String> {
    target(s, catalogue).map(Cow::into_owned)
}

/// The speculation in force, in words, where the scenario's axis uses it: which draft,
/// how many tokens per cycle, at what acceptance, and the tokens a verify yields.
pub fn speculation_summary(s: &Scenario) -> Option<String> {
    let whose = if s.axis == Axis::Speculative {
        "speculative decoding"
    } else if s.decode_pool_speculates() {
        "the decode pool speculates"
    } else {
        return None;
    };
    let draft = s.draft_name();
    Some(format!(
        "{whose}: draft from {draft}, {} token{} per cycle at acceptance {}, {} tokens per verify on average",
        s.draft_tokens,
        if s.draft_tokens == 1 { "" } else { "s" },
        s.acceptance,
        crate::format::sig3(expected_tokens(s.acceptance, s.draft_tokens))
    ))
}

/// The sweep the scenario's bundle describes: the one path the page and the CLI's
/// `--bundle` share. The page refuses a request longer than the model's context window
/// (the engine only warns, since the CLI may model context extension on purpose).
fn request<'a>(s: &Scenario, inputs: &'a Inputs<'a>) -> Result<SweepRequest<'a>, String> {
    let request = inputs.request();
    if let Some((context, window)) = request.setup.context_overrun() {
        return Err(format!(
            "{} prompt and {} output tokens ({context} in all) exceed the model's context window of {window} tokens; shorten the prompt or the output",
            s.isl, s.osl
        ));
    }
    Ok(request)
}

/// Sweeps the scenario (through its bundle), with the deployment it asks to show drawn
/// beside the sweep's own points (`SweepResult::show`; where it cannot be, a note says
/// why); an error is a sentence the page shows as it is.
pub fn explore(s: &Scenario, catalogue: &Catalogue) -> Result<SweepResult, String> {
    let b = bundle(s, catalogue, None)?;
    let i = inputs(&b, catalogue)?;
    let req = request(s, &i)?;
    let mut result = sweep(&req).map_err(|e| e.to_string())?;
    if let Some(spec) = &s.show {
        if let Err(why) = i.resolve(spec).and_then(|d| result.show(&req, &d)) {
            result.notes.push(format!(
                "the deployment to show ({}) is not drawn: {why}",
                crate::bundle::deployment_words(spec)
            ));
        }
    }
    Ok(result)
}

/// Every axis swept at `target` (the scenario's sweep's target), best deployments each.
pub fn compare(
    s: &Scenario,
    catalogue: &Catalogue,
    target: TokensPerSecond,
) -> Result<Vec<AxisBest>, String> {
    let b = bundle(s, catalogue, None)?;
    let i = inputs(&b, catalogue)?;
    compare_axes(&request(s, &i)?, target).map_err(|e| e.to_string())
}

/// Everything about one deployment of the scenario: pools, memory, time split, each
/// headline figure's chain and each pool's operator tables.
pub fn detail(
    s: &Scenario,
    spec: &DeploymentSpec,
    catalogue: &Catalogue,
) -> Result<Explained, String> {
    let b = bundle(s, catalogue, None)?;
    let i = inputs(&b, catalogue)?;
    let deployment = i.resolve(spec).map_err(|e| e.to_string())?;
    // With a request rate, the deployment under those arrivals (the spec's batch is
    // replaced by the concurrency they hold): the CLI's `predict --rate --explain`.
    let mut e = match s.rate {
        Some(r) => explain_at_rate(&i.setup(), &deployment, RequestsPerSecond::new(r)),
        None => explain(&i.setup(), &deployment),
    }
    .map_err(|e| e.to_string())?;
    // Self-hosting against the model's API price, where the table has one.
    if let Some(a) = against(s, &e.point.figures) {
        e.chains.extend(a.chains(s.isl as f64, s.osl as f64));
    }
    Ok(e)
}

/// A point's figures against the cheapest API price the table has for the scenario's
/// model at its mix (`cost::api::against`, which names the choice); `None` for a
/// model without one.
pub fn against(s: &Scenario, f: &Figures) -> Option<api::Against<'static>> {
    let table = api::ApiTable::builtin();
    api::against(table, f, &s.model, None, s.isl as f64, s.osl as f64)
        .ok()
        .flatten()
}

/// The same deployment without speculation at the same batch, where the point
/// speculates (the speculative axis, or a decode pool that drafts).
pub fn detail_without_speculation(
    s: &Scenario,
    spec: &DeploymentSpec,
    catalogue: &Catalogue,
) -> Option<Result<DeploymentPoint, String>> {
    let b = bundle(s, catalogue, None).ok()?;
    let i = inputs(&b, catalogue).ok()?;
    let deployment = i.resolve(spec).ok()?;
    let setup = i.setup();
    let (plain_setup, plain) = without_speculation(&setup, &deployment)?;
    Some(evaluate(&plain_setup, &plain).map_err(|e| e.to_string()))
}

/// The figures of each deployment of `specs` under each of `variants` (scenarios that
/// differ from `s` in their modelling assumptions only): the catalogue and models are
/// built once, then one evaluation per pair. `result[v][d]` is variant `v`, spec `d`.
pub fn evaluate_under(
    s: &Scenario,
    variants: &[Scenario],
    specs: &[&DeploymentSpec],
    catalogue: &Catalogue,
) -> Result<Vec<Vec<Result<Figures, String>>>, String> {
    let b = bundle(s, catalogue, None)?;
    let i = inputs(&b, catalogue)?;
    let deployments = specs
        .iter()
        .map(|spec| i.resolve(spec).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(variants
        .iter()
        .map(|v| {
            let setup = Setup {
                assumptions: v.assumptions(),
                ..i.setup()
            };
            deployments
                .iter()
                .map(|d| {
                    evaluate(&setup, d)
                        .map(|p| p.figures)
                        .map_err(|e| e.to_string())
                })
                .collect()
        })
        .collect())
}

/// What speculation buys at the point's batch, in one sentence.
pub fn speculation_gain(with: &Figures, without: &Figures) -> String {
    let ratio = |a: f64, b: f64| {
        if b > 0.0 && a.is_finite() {
            format!("{}x", crate::format::sig3(a / b))
        } else {
            crate::format::MISSING.to_string()
        }
    };
    format!(
        "Without speculation, at the same batch ({}): {} tok/s per user and {} output tok/s per chip; speculation gives {} per user and {} per chip.",
        without.batch,
        crate::format::rate(without.tok_s_user),
        crate::format::rate(without.output_tok_s_per_chip),
        ratio(with.tok_s_user.value(), without.tok_s_user.value()),
        ratio(
            with.output_tok_s_per_chip.value(),
            without.output_tok_s_per_chip.value()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cheaper_clone_sweeps_beside_its_chip_and_wins_on_cost() {
        let mut s = Scenario {
            chips: vec!["h100-sxm".into()],
            axis: Axis::Aggregated,
            max_chips: 16,
            ..Scenario::default()
        };
        let cat = Catalogue::builtin();
        let price = cat.chip("h100-sxm").unwrap().price.unwrap().value();
        s.apply("chip.cheap-h100.from", "h100-sxm", cat).unwrap();
        s.apply("chip.cheap-h100.price", &(price / 2.0).to_string(), cat)
            .unwrap();
        s.apply("chips", "h100-sxm,cheap-h100", cat).unwrap();
        let r = explore(&s, cat).unwrap();
        let on = |id: &str| {
            r.cloud
                .iter()
                .filter(|p| p.spec.pools[0].chip == id)
                .count()
        };
        // The same numbers but the price: the same deployments, at half the $/Mtok.
        assert_eq!(on("cheap-h100"), on("h100-sxm"));
        assert!(on("h100-sxm") > 0);
        let best = |id: &str| {
            r.cloud
                .iter()
                .filter(|p| p.spec.pools[0].chip == id)
                .filter_map(|p| p.figures.usd_per_mtok_output.map(|u| u.value()))
                .fold(f64::INFINITY, f64::min)
        };
        let ratio = best("cheap-h100") / best("h100-sxm");
        assert!((ratio - 0.5).abs() < 1e-9, "{ratio}");
    }

    #[test]
    fn a_users_chip_price_reprices_every_point_of_that_chip() {
        use disagg_engine::catalogue::ChipField;
        let base = Scenario {
            chips: vec!["h200".into()],
            axis: Axis::Aggregated,
            ..Scenario::default()
        };
        let mut cheap = base.clone();
        cheap
            .apply("chip.h200.price", "1.0", Catalogue::builtin())
            .unwrap();
        assert_eq!(
            cheap.chip_edits.get(&("h200".into(), ChipField::Price)),
            Some(&1.0)
        );
        let (a, b) = (
            explore(&base, Catalogue::builtin()).unwrap(),
            explore(&cheap, Catalogue::builtin()).unwrap(),
        );
        let was = ChipField::Price
            .get(Catalogue::builtin().chip("h200").unwrap())
            .unwrap();
        // Same deployments, same speed; every $/Mtok scaled by the price ratio.
        assert_eq!(a.cloud.len(), b.cloud.len());
        for (p, q) in a.cloud.iter().zip(&b.cloud) {
            assert_eq!(p.figures.tok_s_user, q.figures.tok_s_user);
            let (x, y) = (
                p.figures.usd_per_mtok_output.unwrap().value(),
                q.figures.usd_per_mtok_output.unwrap().value(),
            );
            assert!((y / x - 1.0 / was).abs() < 1e-9, "{x} {y}");
        }
        // The detail of a point uses the same numbers.
        let d = detail(&cheap, &b.cloud[0].spec, Catalogue::builtin()).unwrap();
        assert_eq!(
            d.point.figures.usd_per_mtok_output,
            b.cloud[0].figures.usd_per_mtok_output
        );
        // The link carries the number, and an empty value drops it.
        let (back, notices) = Scenario::from_query(&cheap.to_query(), Catalogue::builtin());
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(back, cheap);
        cheap
            .apply("chip.h200.price", "", Catalogue::builtin())
            .unwrap();
        assert!(cheap.chip_edits.is_empty());
        for bad in [
            ("chip.h200.price", "-3"),
            ("chip.h200.flux", "1"),
            ("chip.warp.price", "1"),
            ("chip.h200", "1"),
        ] {
            assert!(
                base.clone()
                    .apply(bad.0, bad.1, Catalogue::builtin())
                    .is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_users_config_is_swept_like_a_catalogue_model() {
        let s = Scenario {
            model: "custom".into(),
            custom_config: Some(crate::scenario::tests::QWEN25_72B.to_string()),
            ..Scenario::default()
        };
        let r = explore(&s, Catalogue::builtin()).unwrap();
        assert!(!r.cloud.is_empty());
        let m = model_of(&s, Catalogue::builtin()).unwrap();
        assert!((m.ir.params().total / 1e9 - 72.7).abs() < 0.1);
        assert!(!model_is_moe(&s, Catalogue::builtin()));
        // Without a config, the sweep says what to do.
        let none = Scenario {
            custom_config: None,
            ..s
        };
        let why = explore(&none, Catalogue::builtin()).unwrap_err();
        assert!(why.contains("config.json"), "{why}");
    }
    use disagg_engine::disagg::Axis;
    use disagg_engine::sweep::Class;

    #[test]
    fn the_default_scenario_draws_both_kinds_of_deployment() {
        let cat = Catalogue::builtin();
        let r = explore(&Scenario::default(), cat).unwrap();
        assert!(r.feasible > 1000, "{}", r.feasible);
        for class in [Class::Baseline, Class::Homogeneous, Class::Heterogeneous] {
            assert!(r.cloud.iter().any(|p| p.class == class), "{class:?}");
        }
        assert_eq!(r.callouts.len(), 2);
    }

    #[test]
    fn a_point_of_the_sweep_opens_to_the_same_figures() {
        let cat = Catalogue::builtin();
        let s = Scenario::default();
        let r = explore(&s, cat).unwrap();
        // Every point of the default link (its cloud is what the chart draws), exactly:
        // 21 of its 326 once differed in TTFT's last bits.
        assert!(r.cloud.len() > 300, "{}", r.cloud.len());
        for p in &r.cloud {
            let d = detail(&s, &p.spec, cat).unwrap().point;
            assert_eq!(d.figures, p.figures, "{}", p.label);
            assert!(d.fits);
        }
    }

    #[test]
    fn a_speculating_decode_pool_moves_the_frontier_and_opens_consistently() {
        // DeepSeek-V3 with its MTP layer drafting one token at acceptance 0.85 in the
        // decode pool: the fastest user on the frontier gets faster, and the detail
        // panel evaluates the same speculating deployment the sweep drew.
        let cat = Catalogue::builtin();
        let plain = Scenario {
            model: "deepseek-v3".into(),
            isl: 1024,
            osl: 1024,
            chips: vec!["h200".into(), "b200".into()],
            draft_model: None,
            acceptance: 0.85,
            draft_tokens: 1,
            ..Scenario::default()
        };
        let speculating = Scenario {
            speculative_decode: true,
            ..plain.clone()
        };
        let fastest = |s: &Scenario| {
            let r = explore(s, cat).unwrap();
            r.points(&r.throughput.all)
                .map(|p| p.figures.tok_s_user.value())
                .fold(0.0, f64::max)
        };
        let (before, after) = (fastest(&plain), fastest(&speculating));
        assert!(after > before * 1.2, "{before} -> {after}");
        let r = explore(&speculating, cat).unwrap();
        for p in r.points(&r.throughput.all).take(3) {
            assert_eq!(
                detail(&speculating, &p.spec, cat).unwrap().point.figures,
                p.figures
            );
        }
        // Off the prefill/decode axis the setting has no effect.
        let agg = |sd| Scenario {
            axis: Axis::Aggregated,
            speculative_decode: sd,
            ..plain.clone()
        };
        assert_eq!(
            explore(&agg(true), cat).unwrap().throughput.all.len(),
            explore(&agg(false), cat).unwrap().throughput.all.len()
        );
    }

    #[test]
    fn aligned_expert_group_prefills_lift_moe_attention_dp_and_leave_dense_models_alone() {
        let cat = Catalogue::builtin();
        let best = |s: &Scenario| {
            let r = explore(s, cat).unwrap();
            r.points(&r.throughput.all)
                .map(|p| p.figures.output_tok_s_per_chip.value())
                .fold(0.0, f64::max)
        };
        let moe = Scenario {
            model: "deepseek-v3".into(),
            isl: 2048,
            osl: 1024,
            axis: Axis::Aggregated,
            chips: vec!["h200".into()],
            max_chips: 16,
            ..Scenario::default()
        };
        let aligned = Scenario {
            aligned_prefill: true,
            ..moe.clone()
        };
        let (own, together) = (best(&moe), best(&aligned));
        assert!(together > own * 1.05, "{own} -> {together}");
        let r = explore(&aligned, cat).unwrap();
        for p in r.points(&r.throughput.all).take(3) {
            assert_eq!(
                detail(&aligned, &p.spec, cat).unwrap().point.figures,
                p.figures
            );
        }
        // A dense model has no expert group to wait on.
        let dense = Scenario {
            axis: Axis::Aggregated,
            chips: vec!["h200".into()],
            max_chips: 16,
            ..Scenario::default()
        };
        let dense_aligned = Scenario {
            aligned_prefill: true,
            ..dense.clone()
        };
        assert_eq!(best(&dense), best(&dense_aligned));
    }

    #[test]
    fn the_speculation_in_force_is_said_in_words() {
        let s = Scenario {
            draft_model: None,
            acceptance: 0.85,
            draft_tokens: 1,
            ..Scenario::default()
        };
        assert_eq!(speculation_summary(&s), None);
        let pd = Scenario {
            speculative_decode: true,
            ..s.clone()
        };
        // (1 - 0.85^2) / (1 - 0.85) = 1.85.
        assert_eq!(
            speculation_summary(&pd).unwrap(),
            "the decode pool speculates: draft from the model's MTP heads, 1 token per cycle at acceptance 0.85, 1.85 tokens per verify on average"
        );
        let spec = Scenario {
            axis: Axis::Speculative,
            ..Scenario::default()
        };
        assert!(speculation_summary(&spec)
            .unwrap()
            .starts_with("speculative decoding: draft from llama-3.2-1b, 4 tokens"));
    }

    #[test]
    fn impossible_axes_are_sentences_not_panics() {
        let cat = Catalogue::builtin();
        let dense_af = Scenario {
            axis: Axis::AttentionExpert,
            ..Scenario::default()
        };
        assert!(explore(&dense_af, cat)
            .unwrap_err()
            .contains("mixture-of-experts"));
        let no_mtp = Scenario {
            axis: Axis::Speculative,
            draft_model: None,
            ..Scenario::default()
        };
        assert!(explore(&no_mtp, cat)
            .unwrap_err()
            .contains("multi-token-prediction"));
    }

    #[test]
    fn only_moe_models_take_the_attention_expert_settings() {
        let cat = Catalogue::builtin();
        let with = |model: &str| Scenario {
            model: model.into(),
            ..Scenario::default()
        };
        assert!(model_is_moe(&with("deepseek-v3"), cat));
        assert!(!model_is_moe(&with("llama-3.3-70b"), cat));
        assert!(!model_is_moe(&with("no-such-model"), cat));
        // Every catalogue model agrees with the engine's own refusal of the axis.
        for m in &cat.models {
            let s = Scenario {
                axis: Axis::AttentionExpert,
                chips: vec!["h200".into()],
                max_chips: 8,
                // Within every catalogue model's context window.
                isl: 1024,
                osl: 256,
                ..with(&m.id)
            };
            let refused = explore(&s, cat).is_err_and(|e| e.contains("mixture-of-experts"));
            assert_eq!(refused, !model_is_moe(&s, cat), "{}", m.id);
        }
    }

    #[test]
    fn a_request_past_the_models_context_is_refused_with_the_window_named() {
        let cat = Catalogue::builtin();
        let at = |isl: u32, osl: u32| {
            explore(
                &Scenario {
                    model: "llama-3.3-70b".into(),
                    isl,
                    osl,
                    ..Scenario::default()
                },
                cat,
            )
        };
        let err = at(1_000_000, 512).unwrap_err();
        assert!(err.contains("context window of 131072 tokens"), "{err}");
        assert!(err.contains("1000512 in all"), "{err}");
        // Up to the window is fine; one token over is not.
        assert!(at(131_072 - 512, 512).is_ok());
        assert!(at(131_072 - 511, 512).is_err());
    }

    #[test]
    fn latency_limits_keep_the_frontier_to_deployments_that_meet_them() {
        let cat = Catalogue::builtin();
        let s = Scenario {
            ttft_ms: Some(500.0),
            tpot_ms: Some(30.0),
            ..Scenario::default()
        };
        let r = explore(&s, cat).unwrap();
        assert!(!r.throughput.all.is_empty());
        for p in r.points(&r.throughput.all) {
            assert!(p.meets_slo && p.figures.ttft.ms() <= 500.0 && p.figures.tpot.ms() <= 30.0);
        }
        // Points that miss the limits stay in the cloud, marked, and the chart draws
        // them (grey) when it shows the whole cloud.
        assert!(r.cloud.iter().any(|p| !p.meets_slo));
        assert!(r.slo_misses.met > 0);
        // The answer names the best deployments that meet both limits.
        let answer = r.slo_answer.as_ref().expect("limits give an answer");
        assert!(!answer.picks.is_empty());
        for pick in &answer.picks {
            assert!(pick.points.iter().all(|&i| r.cloud[i].meets_slo));
        }
        let chart = crate::chart::ChartModel::new(&r, &s, true, Catalogue::builtin());
        assert!(chart.points.iter().any(|p| !p.meets_slo));
        assert!(chart.points.iter().any(|p| p.meets_slo));
    }
}
