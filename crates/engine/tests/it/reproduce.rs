//! Every published point as a bundle: the bundle `validation::point_bundle` writes for
//! a row, read back from its JSON and run as `disagg predict --bundle` runs it, gives
//! the row's prediction to the last bit.

use super::common::*;
use disagg_engine::bundle::evaluate_bundle;
use disagg_engine::bundle::{Bundle, ModelSource};
use disagg_engine::validation::point_bundle;

#[test]
fn every_row_with_one_deployment_is_reproduced_by_its_bundle() {
    let table = BenchmarkTable::builtin().unwrap();
    let a = Assumptions::default();
    let report = validation::run(cat(), &table, &a);
    let mut reproduced = 0;
    for row in &report.rows {
        let p = &row.point;
        if p.at.is_some() {
            continue;
        }
        let Some(predicted) = row.predicted else {
            continue;
        };
        let b = point_bundle(cat(), p, &a).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(b.model, ModelSource::Catalogue(p.model.clone()), "{}", p.id);
        assert!(b.deployment.is_some(), "{}: no deployment selected", p.id);
        // What a user downloads: the JSON, read back as any bundle is.
        let back = Bundle::read(&b.to_json()).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(back, b, "{}: the JSON does not read back equal", p.id);
        let e = evaluate_bundle(cat(), &back).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        let w = p.workload();
        let value = p.metric.read(&e, w.isl as f64, w.osl as f64).unwrap();
        assert_eq!(
            value.to_bits(),
            predicted.to_bits(),
            "{}: bundle {value} against the row's {predicted}",
            p.id
        );
        reproduced += 1;
    }
    // All but the rows read at an interactivity, which every predicted row is not.
    let targeted = table.point.iter().filter(|p| p.at.is_some()).count();
    assert!(targeted > 0);
    assert_eq!(
        reproduced,
        report.rows.iter().filter(|r| r.predicted.is_some()).count() - targeted,
    );
}

#[test]
fn a_point_read_at_an_interactivity_has_no_bundle() {
    let table = BenchmarkTable::builtin().unwrap();
    let p = table.point.iter().find(|p| p.at.is_some()).unwrap();
    let err = point_bundle(cat(), p, &Assumptions::default()).unwrap_err();
    assert!(
        err.to_string().contains(&p.id) && err.to_string().contains("interactivity"),
        "{err}"
    );
}

#[test]
fn a_bundle_states_the_rows_own_settings() {
    // IMXA06c: TensorRT-LLM on four B200 with NVFP4 experts, the TensorRT-LLM-Gen MoE
    // backend's pick time, ten prompts per user and lengths drawn from a range.
    let table = BenchmarkTable::builtin().unwrap();
    let p = table.point.iter().find(|p| p.id == "IMXA06c").unwrap();
    let b = point_bundle(cat(), p, &Assumptions::default()).unwrap();
    assert_eq!(b.weights.expert_dtype, Some(DType::Nvfp4));
    assert_eq!(b.kv_dtype, DType::Fp8);
    assert_eq!(b.workload.prompts_per_user, Some(10.0));
    assert!(b.workload.output_cv > 0.0);
    assert_eq!(b.assumptions.fp4_routed_pick_time, Seconds::from_ns(1.3));
    assert!(b.assumptions.pinned.contains("fp4_routed_pick_time"));
    let d = b.deployment.as_ref().unwrap();
    assert_eq!(d.batch, 4);
    assert_eq!(b.chips.len(), 1);
    assert_eq!(b.chips[0].id, "b200");
}

#[test]
fn a_rows_explanation_opens_the_prediction_the_table_scores() {
    // An aggregated closed loop, a prefill/decode split and an open loop (MLPerf
    // Server): the explained point reads the row's prediction, and its chains open it.
    let table = BenchmarkTable::builtin().unwrap();
    let a = Assumptions::default();
    let report = validation::run(cat(), &table, &a);
    for id in ["IMXA06c", "IMXD22a", "MLS41-01a"] {
        let row = report.rows.iter().find(|r| r.point.id == id).unwrap();
        let p = &row.point;
        let e = validation::explain_point(cat(), p, &a).unwrap();
        let w = p.workload();
        let value = p.metric.read(&e.point, w.isl as f64, w.osl as f64).unwrap();
        assert_eq!(value.to_bits(), row.predicted.unwrap().to_bits(), "{id}");
        assert!(e.chains.iter().any(|c| c.quantity == "TTFT"), "{id}");
        assert!(!e.point.pools.is_empty(), "{id}");
    }
}
