//! The page's request rate (link key `rate`): what an open loop means, the detail
//! panel's figures of a point under those arrivals (`disagg::open_loop_explain`), and
//! what the sweep shows with a rate. Plain logic, tested natively.
//!
//! The sweep stays the closed loop's (each point a fixed number of concurrent
//! requests). A rate joins the SLO (`Slo::rate`): a point carries it when its own
//! request rate, output tok/s over OSL, reaches it; the others are drawn grey, and the
//! frontiers and the verdict keep to the points that carry it. Opening a point shows its
//! deployment at the rate: the smallest concurrency that keeps up, which may be smaller
//! than the point's.

use crate::format::{self, sig3};
use disagg_engine::disagg::explain::Explained;
use disagg_engine::sweep::SweepResult;

/// What an open loop is, in the page's words.
pub const MEANING: &str = "Open loop: requests arrive at random (a Poisson stream) at the rate you set, as in MLPerf's Server scenario or a serving benchmark's --request-rate, rather than from a fixed number of users each waiting for its answer before asking again. A deployment keeps up when its request rate at some concurrency reaches the arrivals; it then holds the smallest such concurrency (Little's law), delivers exactly the rate, and TTFT adds the wait for the prefill steps (an M/D/1 queue: Pollaczek-Khinchine's mean, Kingman's tail for p50 and p90).";

/// The open loop's own figures and the chain each opens (by the chain's quantity, as
/// `disagg::open_loop_explain` names them); they exist only for a point at a rate.
/// (Its TTFT p50 / p90 opens the open loop's own queue under the figure every point
/// has, `chains::FIGURE_CHAINS`.)
pub const FIGURE_CHAINS: [(&str, &str); 1] = [(
    "concurrency held (open loop)",
    "concurrent requests the arrivals hold",
)];

/// The rows the detail panel puts first for a point at `rate` requests per second:
/// the rate delivered (with its output tokens) and the concurrency it holds.
pub fn rows(e: &Explained, rate: f64) -> Vec<(&'static str, String)> {
    let f = &e.point.figures;
    vec![
        (
            "request rate delivered",
            format!(
                "{} req/s ({} output tok/s)",
                sig3(rate),
                format::rate(f.output_tok_s)
            ),
        ),
        (
            "concurrency held (open loop)",
            format!("{} requests in flight", f.batch),
        ),
    ]
}

/// The point's answer at the rate in one paragraph: rate, concurrency, TTFT with its
/// spread and parts, TPOT with its p90.
pub fn answer(e: &Explained, rate: f64) -> String {
    let d = &e.point;
    let f = &d.figures;
    format!(
        "At {} requests per second arriving at random, this deployment keeps up holding {} requests in flight and delivers {} output tok/s. TTFT {} on average (p50 {}, p90 {}): {}. TPOT {} on average (p90 {}).",
        sig3(rate),
        f.batch,
        format::rate(f.output_tok_s),
        format::duration(f.ttft),
        format::duration(d.ttft.quantile(0.5)),
        format::duration(d.ttft.quantile(0.9)),
        format::ttft_parts(&d.ttft.parts),
        format::duration(f.tpot),
        format::duration(d.tpot.quantile(0.9)),
    )
}

/// What the chart shows with a rate set: how many deployments carry it.
pub fn sweep_note(rate: f64, r: &SweepResult) -> String {
    let short = r.slo_misses.rate;
    format!(
        "With {} requests per second: of {} deployments that fit, {} carry the rate at their own concurrency (their output tok/s over OSL reaches it) and {} do not; those are grey, and the frontiers and the verdict keep to the rest. Points and frontiers are the closed loop's figures; open a point to see it at this rate.",
        sig3(rate),
        r.feasible,
        r.feasible.saturating_sub(short),
        short
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chains::chain_for;
    use crate::explore::{detail, explore};
    use crate::scenario::Scenario;
    use disagg_engine::disagg::Axis;
    use disagg_engine::Catalogue;

    fn scenario(rate: &str) -> Scenario {
        let mut s = Scenario {
            model: "llama-3.1-8b".into(),
            axis: Axis::PrefillDecode,
            chips: vec!["h100-sxm".into()],
            max_chips: 8,
            isl: 2000,
            osl: 200,
            ..Scenario::default()
        };
        s.apply("rate", rate, Catalogue::builtin()).unwrap();
        s
    }

    #[test]
    fn a_point_at_a_rate_delivers_it_and_opens_its_queue() {
        let cat = Catalogue::builtin();
        let s = scenario("3");
        let r = explore(&s, cat).unwrap();
        let i = r.throughput.all[0];
        let e = detail(&s, &r.cloud[i].spec, cat).unwrap();
        let rows = rows(&e, 3.0);
        // Three requests of 200 tokens a second.
        assert_eq!(rows[0].1, "3.00 req/s (600 output tok/s)");
        assert_eq!(
            rows[1].1,
            format!("{} requests in flight", e.point.figures.batch)
        );
        // Every open-loop figure opens its chain, and the chain recomputes.
        for (figure, _) in FIGURE_CHAINS {
            let c = chain_for(&e.chains, figure).unwrap_or_else(|| panic!("{figure}"));
            assert!(c.recompute().is_some(), "{figure}");
        }
        // TTFT's p90 opens the open loop's own queue, not the closed loop's: one chain.
        let p90 = chain_for(&e.chains, "TTFT p50 / p90").unwrap();
        assert_eq!(p90.formula.to_string(), "W_90 + t_pf + t_xfer + t_1");
        assert_eq!(
            e.chains.iter().filter(|c| c.quantity == "p90 TTFT").count(),
            1
        );
        let text = answer(&e, 3.0);
        assert!(text.starts_with("At 3.00 requests per second"), "{text}");
        assert!(text.contains("own prefill"), "{text}");
        // TPOT's p90 as the engine states it for the point at the rate.
        assert!(
            text.ends_with(&format!(
                "(p90 {}).",
                crate::format::duration(e.point.tpot.quantile(0.9))
            )),
            "{text}"
        );
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
        // The frontier's points all carry the rate; the note counts those that do not.
        for p in r.points(&r.throughput.all) {
            assert!(p.figures.output_tok_s.value() >= 600.0, "{}", p.label);
        }
        let note = sweep_note(3.0, &r);
        assert!(
            note.contains(&format!("{} do not", r.slo_misses.rate)),
            "{note}"
        );
    }

    #[test]
    fn a_rate_beyond_a_deployment_says_what_it_serves() {
        let cat = Catalogue::builtin();
        let s = scenario("1000000");
        let r = explore(&s, cat).unwrap();
        // Nothing within 8 chips carries a million requests a second.
        assert!(r.throughput.all.is_empty());
        assert!(r
            .notes
            .iter()
            .any(|n| n.contains("cannot carry the request rate")));
        let why = detail(&s, &r.cloud[0].spec, cat).unwrap_err();
        assert!(why.contains("serves at most"), "{why}");
    }
}
