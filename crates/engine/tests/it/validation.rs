//! The validation table: coverage, published disaggregated points, interactivity
//! targets and the harness settings points state.

use super::common::*;

#[test]
fn validation_covers_the_required_ground() {
    let table = BenchmarkTable::builtin().unwrap();
    assert!(table.point.len() >= 40);
    let report = validation::run(cat(), &table, &Assumptions::default());
    let predicted = report.rows.iter().filter(|r| r.error.is_some()).count();
    assert!(predicted >= 40, "{predicted} points predicted");
    let has = |f: &dyn Fn(&validation::BenchmarkPoint) -> bool| table.point.iter().any(f);
    assert!(has(
        &|p| p.model.contains("deepseek") || p.model.contains("mixtral")
    ));
    assert!(has(&|p| p.model.starts_with("llama")));
    assert!(has(&|p| p.chips == 1) && has(&|p| p.chips > 1));
    for chip in ["h100-sxm", "mi300x", "m2-ultra"] {
        assert!(has(&|p| p.chip == chip), "{chip}");
    }
    assert!(
        table.point.iter().any(|p| p.role == Role::Holdout)
            && table.point.iter().any(|p| p.role == Role::Calibration)
    );
    assert!(report.calibration.is_some() && report.holdout.is_some());
}

#[test]
fn the_published_disaggregated_points_are_predicted() {
    // Issue 3: InferenceMAX prefill/decode on GB200, GB300 and MI355X, SGLang's and
    // DeepSeek's per-node figures, and Step-3's attention/FFN figure.
    let table = BenchmarkTable::builtin().unwrap();
    let report = validation::run(cat(), &table, &Assumptions::default());
    let predicted = |f: &dyn Fn(&validation::BenchmarkPoint) -> bool| {
        report
            .rows
            .iter()
            .any(|r| f(&r.point) && r.predicted.is_some() && r.point.axis.is_some())
    };
    for chip in ["gb200", "gb300", "mi355x"] {
        assert!(
            predicted(&|p| p.id.starts_with("IMX") && p.chip == chip),
            "{chip}"
        );
    }
    for id in ["SGL-01", "SGL-02", "DS-01", "DS-02", "AFD-01"] {
        assert!(predicted(&|p| p.id == id), "{id}");
    }
}

#[test]
fn a_point_read_at_an_interactivity_is_read_at_the_batch_that_gives_it() {
    // Take a fixed-batch point, note the speed per user the model gives at its batch,
    // then ask for that speed instead: the search must land on the same batch and
    // read the same value.
    let table = BenchmarkTable::builtin().unwrap();
    let fixed = table
        .point
        .iter()
        .find(|p| p.axis.is_none() && p.batch == Some(64) && p.at.is_none())
        .unwrap()
        .clone();
    let base = Assumptions::default();
    let at_64 = predict_point(&fixed);
    let targeted = validation::BenchmarkPoint {
        batch: None,
        metric: validation::Metric::OutputTokSPerChip,
        at: Some(validation::InteractivityTarget {
            metric: validation::Metric::TokSUser,
            value: at_64.tok_s_user,
        }),
        ..fixed.clone()
    };
    let one = |point: validation::BenchmarkPoint| {
        validation::run(
            cat(),
            &BenchmarkTable {
                point: vec![point],
                unmapped: Vec::new(),
            },
            &base,
        )
        .rows
        .remove(0)
    };
    let row = one(targeted.clone());
    assert!((row.read_at_batch.unwrap() - 64.0).abs() < 1e-6, "{row:?}");
    let got = row.predicted.unwrap();
    assert!(
        (got - at_64.output_tok_s_per_chip).abs() < 1e-9 * got,
        "{got}"
    );
    // A target no batch reaches is a problem stated, not a number.
    let row = one(validation::BenchmarkPoint {
        at: Some(validation::InteractivityTarget {
            metric: validation::Metric::TokSUser,
            value: 1e9,
        }),
        ..targeted.clone()
    });
    assert!(row.predicted.is_none());
    assert!(row.problem.unwrap().contains("short of the target"));
    // A point may not fix its batch and ask for an interactivity at once.
    let row = one(validation::BenchmarkPoint {
        batch: Some(8),
        ..targeted
    });
    assert!(row.predicted.is_none() && row.problem.is_some());
}

/// A published point predicted as stated and with one harness setting cleared back to
/// the global assumption: (the point, as stated, with the default).
fn stated_and_default(
    id: &str,
    clear: impl FnOnce(&mut validation::BenchmarkPoint),
) -> (validation::BenchmarkPoint, Prediction, Prediction) {
    let point = published_point(id);
    let stated = predict_point(&point);
    let mut cleared = point.clone();
    clear(&mut cleared);
    let default = predict_point(&cleared);
    (point, stated, default)
}

#[test]
fn a_published_harness_batch_limit_replaces_the_default() {
    // MLP41-01 states NVIDIA's harness: TP2 instances batching up to 896 sequences,
    // so the largest batch is what memory holds up to 896 per instance.
    let (point, stated, default) =
        stated_and_default("MLP41-01", |p| p.max_seqs_per_replica = None);
    assert_eq!(point.max_seqs_per_replica, Some(896.0));
    let replicas = stated.parallelism.dp;
    assert_eq!(replicas, 4);
    // Without it, the point runs its framework's default (auto on an H100:
    // TensorRT-LLM's 2048 per replica), and memory holds fewer.
    let h100 = cat().chip("h100-sxm").unwrap();
    let framework_limit = Assumptions::default().on_chip(h100).max_seqs_per_replica;
    assert_eq!(framework_limit, 2048.0);
    assert!(
        default.batch as u64 == default.max_batch.min(2048 * 4),
        "{default:?}"
    );
    assert_eq!(
        stated.batch as u64,
        stated.max_batch.min(896 * replicas as u64)
    );
    assert_ne!(stated.batch, default.batch);
}

#[test]
fn a_harness_token_budget_bounds_each_prefill_step() {
    // TRT-07 states trtllm-bench's own max_num_tokens, 2048: a prefill step takes two
    // whole 1,000-token prompts, where the default 8,192-token budget takes eight.
    let (point, stated, default) = stated_and_default("TRT-07", |p| p.max_tokens_per_step = None);
    assert_eq!(point.max_tokens_per_step, Some(2048.0));
    assert_eq!(
        point
            .assumptions(&Assumptions::default())
            .prefill_chunk_tokens,
        2048.0
    );
    assert_eq!(stated.prefill_batch, 2.0);
    assert_eq!(default.prefill_batch, 8.0);
    // Fewer prompts share each step's weight reads and fixed costs, so each costs more.
    let per_prompt = |p: &Prediction| p.prefill_step.value() / p.prefill_batch;
    assert!(per_prompt(&stated) > per_prompt(&default));
}

#[test]
fn a_disaggregated_recipe_limit_holds_the_decode_pool_and_queues_the_rest() {
    // IMXD14 (Dynamo + TensorRT-LLM on H100) runs three TEP16 decode workers of
    // max_batch_size 8 and a DEP16 prefill worker of max_num_tokens 2048 per rank, at
    // concurrency 30: 24 users decode at most, and a prefill step takes two prompts.
    let point = published_point("IMXD14c");
    assert_eq!(point.max_seqs_per_replica, Some(8.0));
    assert_eq!(point.max_tokens_per_step, Some(2048.0));
    let eval = |p: &validation::BenchmarkPoint| {
        validation::evaluate_point(cat(), p, &Assumptions::default()).unwrap()
    };
    let stated = eval(&point);
    let mut cleared = point.clone();
    cleared.max_seqs_per_replica = None;
    cleared.max_tokens_per_step = None;
    let default = eval(&cleared);
    let decode = stated.pool(PoolRole::Decode).unwrap();
    let prefill = stated.pool(PoolRole::Prefill).unwrap();
    assert_eq!(decode.parallelism.dp, 3);
    assert_eq!(stated.figures.running, 24);
    assert_eq!(decode.seqs_per_replica, 8.0);
    assert_eq!(prefill.seqs_per_replica, 2.0);
    // The framework's defaults run all 30 and fill a prefill step with eight prompts.
    assert_eq!(default.figures.running, 30);
    assert_eq!(
        default.pool(PoolRole::Prefill).unwrap().seqs_per_replica,
        8.0
    );
    // The six users the decode pool cannot hold wait (C - n) / X in front of it, so
    // the closed loop still satisfies Little's law with every user counted (on the
    // steady loop: the row's first wave moves its mean TTFT only, MODEL.md 6.1.2).
    let osl = point.workload().osl as f64;
    let x = stated.figures.output_tok_s.value() / osl;
    let queue = (30.0 - 24.0) / x;
    assert!(stated.figures.ttft.value() > queue, "{stated:?}");
    let steady = eval(&validation::BenchmarkPoint {
        prompts: None,
        prompts_per_user: None,
        ..point.clone()
    });
    assert_eq!(steady.figures.output_tok_s, stated.figures.output_tok_s);
    let little = x * (steady.figures.ttft.value() + (osl - 1.0) * steady.figures.tpot.value());
    assert!((little - 30.0).abs() < 1e-6, "{little}");
}

#[test]
fn a_harness_that_runs_one_engine_per_gpu_is_that_many_copies_of_one_gpu() {
    // NVIDIA's v4.1 Mixtral harness runs a TP1 engine on every H100 (MLP41-11): the
    // eight-GPU system is eight copies of one GPU, where the planner alone would split
    // the experts across four of them.
    let eight = published_point("MLP41-11");
    // One GPU's copy of the run: an eighth of its samples, so that the Offline run's
    // end weighs the same (MODEL.md 6.1.4).
    let one = validation::BenchmarkPoint {
        chips: 1,
        offline: eight.offline.map(|o| validation::OfflineRun {
            samples: o.samples / 8,
            ..o
        }),
        ..eight.clone()
    };
    assert_eq!(eight.offline.unwrap().samples % 8, 0);
    let system = predict_point(&eight);
    let single = predict_point(&one);
    let layout = system.parallelism;
    assert_eq!((layout.tp, layout.ep, layout.dp), (1, 1, 8));
    assert_eq!(system.batch, 8 * single.batch);
    assert!(single.batch as f64 <= eight.max_seqs_per_replica.unwrap());
    let ratio = system.output_tok_s / single.output_tok_s;
    assert!((ratio - 8.0).abs() < 1e-9, "{ratio}");
    assert!((system.output_tok_s_per_chip - single.output_tok_s).abs() < 1e-6);
}

/// llama.cpp holds no share of memory back (its compute buffers are the workspace's
/// activations at its 512-token physical batch), so Llama-2-70B in F16 fits the M2
/// Ultra it ran on; with the generic 8% reserve stated (pinned) it would not.
#[test]
fn llama_cpp_holds_no_memory_back_and_a_70b_f16_model_fits_the_m2_ultra_it_ran_on() {
    let point = published_point("CONB19");
    assert_eq!(point.framework.serving().id(), "llamacpp");
    assert!(predict_point(&point).fits);
    let generic = validation::evaluate_point(
        cat(),
        &point,
        &Assumptions::default().pin("runtime_reserve", Assumptions::default().runtime_reserve),
    )
    .unwrap();
    assert!(!generic.fits, "{:?}", generic.reason);
}

#[test]
fn a_vultr_level_after_the_first_finds_its_prompts_cached_but_one_block() {
    // The sweep re-sends the same seeded prompts at every level to one vLLM server:
    // from the second level on, each 2,048-token prompt hits the prefix cache up to its
    // length less one, in whole 16-token blocks, so one block is computed.
    for id in ["VUL02a", "VUL03c", "VUL04b", "VUL05a"] {
        let point = published_point(id);
        assert_eq!(point.workload().computed_prompt(), 16.0, "{id}");
        assert_eq!(point.prompts, Some(50), "{id}");
    }
    // The first level ran on a fresh server: its prompts are computed whole.
    assert_eq!(
        published_point("VUL01c").workload().computed_prompt(),
        2048.0
    );
    // At 50 users the cached prompts add no prefill to the generation round: TPOT is
    // the decode step itself, where the uncached reading spreads 50 prompts' prefill
    // over each request's tokens.
    let (_, cached, uncached) = stated_and_default("VUL05c", |p| p.cached_prompt_share = None);
    let close = |a: Seconds, b: Seconds| (a.value() / b.value() - 1.0).abs() < 1e-9;
    assert!(close(cached.tpot, cached.decode_step), "{cached:?}");
    assert!(uncached.tpot.value() > uncached.decode_step.value() * 1.2);
    assert!(cached.output_tok_s > uncached.output_tok_s);
}

#[test]
fn a_vllm_v0_run_batches_up_to_v0s_default_limit() {
    // OTH-02 (Oracle, October 2024) ran vLLM's V0 engine, whose EngineArgs default is
    // 256 sequences; the vllm profile's 1,024 is V1's.
    let (point, stated, default) = stated_and_default("OTH-02", |p| p.max_seqs_per_replica = None);
    assert_eq!(point.max_seqs_per_replica, Some(256.0));
    assert_eq!(stated.batch, 256);
    assert_eq!(default.batch, 1024);
    assert!(stated.output_tok_s < default.output_tok_s);
}

/// `point` alone in a table, run as `disagg validate` runs it.
fn validated(point: validation::BenchmarkPoint) -> validation::ValidationRow {
    validation::run(
        cat(),
        &BenchmarkTable {
            point: vec![point],
            unmapped: Vec::new(),
        },
        &Assumptions::default(),
    )
    .rows
    .remove(0)
}

#[test]
fn a_median_row_reads_the_engines_p50() {
    use disagg_engine::disagg::ttft::Wait;
    use validation::Metric;
    // An aggregated point at concurrency 4 of 1,024/1,024 tokens on 4 x B200.
    let base = validation::BenchmarkPoint {
        metric: Metric::TtftMs,
        ..published_point("IMXA05c")
    };
    let as_metric = |metric: Metric, point: &validation::BenchmarkPoint| {
        validated(validation::BenchmarkPoint {
            metric,
            ..point.clone()
        })
        .predicted
        .unwrap()
    };
    // One user alone never waits behind another prompt: the median request is the
    // mean one, its own prefill and first step.
    let alone = validation::BenchmarkPoint {
        batch: Some(1),
        prompts: None,
        prompts_per_user: None,
        ..base.clone()
    };
    let e = validation::evaluate_point(cat(), &alone, &Assumptions::default()).unwrap();
    let p50 = as_metric(Metric::TtftP50Ms, &alone);
    assert!((p50 - as_metric(Metric::TtftMs, &alone)).abs() < 1e-9 * p50);
    let parts = e.ttft.parts;
    assert!((p50 - (parts.total() - parts.prefill_wait).ms()).abs() < 1e-9 * p50);
    // An open loop at random arrivals: a share u of requests waits, exponentially, for
    // a mean W / u, so the median waits (W / u) ln(2u) when u > 1/2 and nothing
    // otherwise (MODEL.md 6.1). Long prompts and short answers, so that prefill is
    // what loads the chips.
    let mut loads = Vec::new();
    for rate in (0..16).map(|k| 0.25 * 1.5f64.powi(k)) {
        let open = validation::BenchmarkPoint {
            isl: 8192,
            osl: 16,
            batch: None,
            prompts: None,
            rate: Some(rate),
            ..base.clone()
        };
        // Past the deployment's capacity there is no steady loop.
        let Ok(e) = validation::evaluate_point(cat(), &open, &Assumptions::default()) else {
            break;
        };
        let Wait::Poisson { mean, utilisation } = e.ttft.wait else {
            panic!("an open loop's wait is Poisson: {:?}", e.ttft.wait)
        };
        loads.push(utilisation);
        let median_wait = if utilisation > 0.5 {
            mean.ms() / utilisation * (2.0 * utilisation).ln()
        } else {
            0.0
        };
        let by_hand = (e.ttft.parts.total() - e.ttft.parts.prefill_wait).ms() + median_wait;
        let p50 = as_metric(Metric::TtftP50Ms, &open);
        assert!(
            (p50 - by_hand).abs() < 1e-9 * p50,
            "rate {rate}: {p50} against {by_hand}"
        );
        assert!(p50 <= as_metric(Metric::TtftMs, &open) + 1e-9);
        // The median TPOT is the engine's p50 too.
        let tpot = as_metric(Metric::TpotP50Ms, &open);
        assert!((tpot - e.tpot.quantile(0.5).ms()).abs() < 1e-9 * tpot);
    }
    // Both branches of the closed form were read.
    assert!(
        loads.iter().any(|&u| u < 0.5) && loads.iter().any(|&u| u > 0.5),
        "{loads:?}"
    );
    // A median counts among the TTFT rows issue 22 sets a target for; a mean TPOT's
    // median does not.
    assert!(Metric::TtftP50Ms.is_ttft() && Metric::TtftMs.is_ttft());
    assert!(!Metric::TpotP50Ms.is_ttft());
}

#[test]
fn the_median_rows_are_their_mean_siblings_with_the_published_median() {
    use validation::Metric;
    let table = BenchmarkTable::builtin().unwrap();
    let medians: Vec<_> = table
        .point
        .iter()
        .filter(|p| matches!(p.metric, Metric::TtftP50Ms | Metric::TpotP50Ms))
        .collect();
    assert!(medians.iter().any(|p| p.metric == Metric::TtftP50Ms));
    for m in medians {
        // `IMXA05cp` is `IMXA05c`'s median: every mapping field the same.
        let id = m.id.strip_suffix('p').unwrap_or_else(|| panic!("{}", m.id));
        let mean = table.point.iter().find(|p| p.id == id).unwrap();
        let expected = match m.metric {
            Metric::TtftP50Ms => Metric::TtftMs,
            _ => Metric::TpotMs,
        };
        assert_eq!(mean.metric, expected, "{}", m.id);
        let same = validation::BenchmarkPoint {
            id: mean.id.clone(),
            metric: mean.metric,
            measured: mean.measured,
            note: mean.note.clone(),
            ..(*m).clone()
        };
        assert_eq!(&same, mean, "{}", m.id);
        // Each names where its median was published: an InferenceMAX record's fixture or
        // an MLPerf run's LoadGen summary.
        let note = m.note.as_deref().unwrap_or_default();
        assert!(
            m.measured > 0.0
                && (note.contains("InferenceX-app") || note.contains("mlperf_log_summary")),
            "{}",
            m.id
        );
    }
}

/// The breakdown partitions the headline sets: each key's groups hold every calibration
/// and hold-out mean row once, each group's summary is the headline summary of its own
/// rows, and the groups with the most hold-out rows come first.
#[test]
fn a_breakdown_partitions_the_headline_sets() {
    use validation::{breakdown, mean_set, GroupBy, HOLDOUT_TARGET};
    let table = BenchmarkTable::builtin().unwrap();
    let report = validation::run(cat(), &table, &Assumptions::default());
    let points = |s: Option<validation::ErrorSummary>| s.map_or(0, |s| s.points);
    for keys in [
        vec![GroupBy::Framework],
        vec![GroupBy::Chip, GroupBy::Metric],
        vec![GroupBy::Block],
        vec![GroupBy::Axis, GroupBy::Model],
    ] {
        let groups = breakdown(&report.rows, &keys);
        let held: usize = groups.iter().map(|g| points(g.holdout)).sum();
        let calibrated: usize = groups.iter().map(|g| points(g.calibration)).sum();
        assert_eq!(held, points(report.holdout));
        assert_eq!(calibrated, points(report.calibration));
        for w in groups.windows(2) {
            assert!(points(w[0].holdout) >= points(w[1].holdout));
        }
        let within: usize = groups.iter().map(|g| g.holdout_within_target).sum();
        let all_within = validation::mean_rows(&report.rows, Role::Holdout)
            .filter_map(|r| r.error)
            .filter(|e| e.abs() <= HOLDOUT_TARGET)
            .count();
        assert_eq!(within, all_within);
        for g in &groups {
            let mine = |p: &validation::BenchmarkPoint| {
                keys.iter().map(|k| k.of(p)).collect::<Vec<_>>() == g.key
            };
            assert_eq!(g.holdout, mean_set(&report.rows, Role::Holdout, mine));
            assert_eq!(
                g.calibration,
                mean_set(&report.rows, Role::Calibration, mine)
            );
        }
    }
    // A filter keeps its rows and counts the sets over them alone.
    let only = |text: &str| validation::Only::parse_list(text, &table.point).unwrap();
    let held = report.clone().only(&only("role=holdout"));
    assert_eq!((held.holdout, held.calibration), (report.holdout, None));
    let sglang = report.clone().only(&only("framework=sglang,role=holdout"));
    assert!(sglang
        .rows
        .iter()
        .all(|r| r.point.framework.id() == "sglang"));
    assert_eq!(
        sglang.holdout,
        mean_set(&report.rows, Role::Holdout, |p| p.framework.id()
            == "sglang")
    );
    for (bad, says) in [
        ("vendor=amd", "\"vendor\""),
        ("chip", "key=value"),
        ("chip=b200,chip=h200", "twice"),
        ("framework=foo", "the rows have dynamo-sglang"),
    ] {
        let why = validation::Only::parse_list(bad, &table.point)
            .unwrap_err()
            .to_string();
        assert!(why.contains(says), "{bad}: {why}");
    }
    // One group of a framework, with its bias's sign: llama.cpp's hold-out rows.
    let by_framework = breakdown(&report.rows, &[GroupBy::Framework]);
    let llama = by_framework.iter().find(|g| g.key == ["llamacpp"]).unwrap();
    assert!(llama.holdout.unwrap().points >= 40);
    assert!(llama.holdout_bias.unwrap().is_finite());
}
