//! The latency limits (TTFT, TPOT, and whether they bind the mean or the p90) as the link carries them.

use super::tests::cat;
use super::*;

#[test]
fn limits_at_the_p90_travel_in_the_link_and_reach_the_sweep() {
    use disagg_engine::sweep::SloAt;
    let (s, notices) = Scenario::from_query("v=1&ttft=1500&tpot=40&sloat=p90", cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(s.slo_at, SloAt::P90);
    assert!(s.to_query().contains("sloat=p90"));
    // The mean is the default and is not written.
    let mut t = s.clone();
    t.apply("sloat", "mean", cat()).unwrap();
    assert_eq!(t.slo_at, SloAt::Mean);
    assert!(!t.to_query().contains("sloat"));
    // Anything else is refused, naming the two choices, and changes nothing.
    let err = t.apply("sloat", "p99", cat()).unwrap_err();
    assert!(err.contains("mean or the p90"), "{err}");
    assert_eq!(t.slo_at, SloAt::Mean);
    // The sweep's points are marked by their p90 figures.
    let r = crate::explore::explore(&s, cat()).unwrap();
    assert!(!r.cloud.is_empty());
    for p in &r.cloud {
        let f = &p.figures;
        let meets = f.ttft_p90.ms() <= 1500.0 && f.tpot_p90.ms() <= 40.0;
        assert_eq!(p.meets_slo, meets, "{}", p.label);
    }
}

#[test]
fn latency_limits_come_from_the_link_and_bad_ones_are_refused() {
    let (s, notices) = Scenario::from_query("v=1&ttft=500&tpot=30", cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!((s.ttft_ms, s.tpot_ms), (Some(500.0), Some(30.0)));
    assert!(s.to_query().contains("ttft=500") && s.to_query().contains("tpot=30"));
    // Empty means none; a non-positive, huge or non-numeric limit is refused by name.
    let mut t = s.clone();
    t.apply("ttft", "", cat()).unwrap();
    assert_eq!(t.ttft_ms, None);
    for bad in ["0", "-5", "1e12", "NaN", "fast"] {
        let err = t.apply("tpot", bad, cat()).unwrap_err();
        assert!(err.contains("latency limit"), "{bad}: {err}");
        assert_eq!(t.tpot_ms, Some(30.0));
    }
}
