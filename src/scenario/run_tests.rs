//! A run's own settings (`run_settings.rs`) and the deployment a scenario shows beside
//! its sweep (`show.rs`), as the link carries them and the sweep reads them.

use super::tests::cat;
use super::*;

/// A deployment to show that is not one is refused by its key, naming the JSON field;
/// an empty value clears it; one of the wrong axis or with a chip the scenario does not
/// sweep is read, and the sweep's notes say why it is not drawn.
#[test]
fn a_deployment_to_show_is_read_checked_and_explained() {
    let mut s = Scenario::default();
    for (bad, says) in [
        ("{", "not a deployment"),
        (r#"{"axis":"agg","pools":[],"batch":1}"#, "micro_batches"),
        (
            r#"{"axis":"sideways","pools":[],"batch":1,"micro_batches":1}"#,
            "sideways",
        ),
    ] {
        let why = s.apply(SHOW_KEY, bad, cat()).unwrap_err();
        assert!(why.contains(says), "{bad}: {why}");
        assert_eq!(s.show, None);
    }
    let long = format!("{{{}}}", " ".repeat(5000));
    assert!(s
        .apply(SHOW_KEY, &long, cat())
        .unwrap_err()
        .contains("4096"));
    let on = |chip: &str, axis: &str| {
        let role = if axis == "spec" {
            "target"
        } else {
            "colocated"
        };
        format!(
            r#"{{"axis":"{axis}","pools":[{{"role":"{role}","chip":"{chip}","parallelism":{{"tp":8,"pp":1,"dp":1,"ep":1}}}}],"batch":37,"micro_batches":1}}"#
        )
    };
    s.apply(SHOW_KEY, &on("h200", "agg"), cat()).unwrap();
    let r = crate::explore::explore(&s, cat()).unwrap();
    let at = r.shown.expect("batch 37 is not swept, so it is added");
    assert_eq!(r.cloud[at].spec, s.show.clone().unwrap());
    s.apply(SHOW_KEY, "", cat()).unwrap();
    assert_eq!(s.show, None);
    for (chip, axis, says) in [
        ("gb300", "agg", "gb300"),
        ("h200", "spec", "the sweep's axis is prefill/decode"),
    ] {
        s.apply(SHOW_KEY, &on(chip, axis), cat()).unwrap();
        let r = crate::explore::explore(&s, cat()).unwrap();
        assert_eq!(r.shown, None);
        let note = r.notes.iter().find(|n| n.contains("to show")).unwrap();
        assert!(
            note.contains("is not drawn") && note.contains(says),
            "{note}"
        );
    }
}

/// The run settings: each refuses a value out of its range with a sentence naming the
/// setting, leaving the scenario as it was; empty returns it to the engine's default,
/// which the link does not write; set, each reaches the engine's bundle.
#[test]
fn run_settings_are_checked_written_only_when_set_and_reach_the_bundle() {
    let mut s = Scenario::default();
    for (key, bad, says) in [
        ("np", "0", "prompts are a whole number"),
        ("bpw", "0.5", "bits per weight"),
        ("hov", "sometimes", "hov is on, off or auto"),
        ("rcv", "0", "the scheduler polls"),
        ("tbo", "2", "tbo is 1"),
        ("offload", "1", "weights offloaded"),
    ] {
        let why = s.apply(key, bad, cat()).unwrap_err();
        assert!(why.contains(says), "{key}={bad}: {why}");
        assert_eq!(s, Scenario::default(), "{key}");
    }
    for (key, value) in [
        ("np", "640"),
        ("bpw", "4.5"),
        ("hov", "on"),
        ("rcv", "30"),
        ("tbo", "1"),
        ("offload", "0.5"),
    ] {
        s.apply(key, value, cat()).unwrap();
        assert!(s.to_query().contains(&format!("{key}={value}")), "{key}");
    }
    let b = crate::bundle::bundle(&s, cat(), None).unwrap();
    assert_eq!(
        (
            b.workload.prompts,
            b.weights.bits,
            b.assumptions.host_overlap
        ),
        (Some(640), Some(4.5), Some(true))
    );
    assert_eq!(
        (
            b.assumptions.scheduler_recv_interval,
            b.assumptions.prefill_two_batch_overlap,
            b.assumptions.weight_offload
        ),
        (30, true, 0.5)
    );
    for key in RUN_KEYS {
        s.apply(key, "", cat()).unwrap();
    }
    assert_eq!(s, Scenario::default());
    assert!(RUN_KEYS
        .iter()
        .all(|k| !s.to_query().contains(&format!("&{k}="))));
}

/// A deployment to show made of extreme numbers never breaks the sweep: each is read
/// (it is JSON of the right shape) and the sweep's notes say why it is not drawn.
#[test]
fn an_extreme_deployment_to_show_is_refused_by_the_sweep_not_a_panic() {
    let pool = |role: &str, tp: u64, dp: u64| {
        format!(
            r#"{{"role":"{role}","chip":"h200","parallelism":{{"tp":{tp},"pp":1,"dp":{dp},"ep":1}}}}"#
        )
    };
    let spec = |axis: &str, pools: &[String], batch: u64, micro: u64| {
        format!(
            r#"{{"axis":"{axis}","pools":[{}],"batch":{batch},"micro_batches":{micro}}}"#,
            pools.join(",")
        )
    };
    let max = u32::MAX as u64;
    for value in [
        spec("agg", &[pool("colocated", max, max)], max, 1),
        spec("agg", &[pool("colocated", 0, 1)], 8, 1),
        spec("agg", &[pool("colocated", 8, 1)], 0, 1),
        spec("agg", &[], 8, 1),
        spec("pd", &[pool("prefill", 8, 1)], 8, 1),
        spec("pd", &[pool("prefill", 8, 1), pool("prefill", 8, 1)], 8, 1),
        spec(
            "af",
            &[pool("attention", 8, 1), pool("experts", 8, 1)],
            8,
            max,
        ),
        spec("agg", &[pool("decode", 8, 1)], 8, 1),
    ] {
        let mut s = Scenario::default();
        s.apply(SHOW_KEY, &value, cat()).unwrap();
        s.axis = s.show.as_ref().unwrap().axis;
        let r = crate::explore::explore(&s, cat());
        let notes = match &r {
            Ok(r) => {
                assert_eq!(r.shown, None, "{value}");
                r.notes.clone()
            }
            Err(why) => vec![why.clone()],
        };
        assert!(
            notes
                .iter()
                .any(|n| n.contains("is not drawn") || n.contains("mixture")),
            "{value}: {notes:?}"
        );
    }
}
