//! Little's law on closed loops: `C` requests each cycling through TTFT and `OSL - 1`
//! further tokens complete `X` per second with `C = X (TTFT + (OSL - 1) TPOT)`, the
//! identity every serving benchmark's concurrency, throughput, TTFT and TPOT obey.
//! The engine's figures must obey it exactly on every axis, below and above the
//! engine's batch limit, whichever pool sets the rate.

use crate::common::*;

/// `X (TTFT + (OSL - 1) TPOT) / C`, which Little's law makes 1.
fn little(p: &DeploymentPoint, osl: f64) -> f64 {
    let f = &p.figures;
    let rate = f.output_tok_s.value() / osl;
    rate * (f.ttft.value() + (osl - 1.0) * f.tpot.value()) / f.batch as f64
}

#[test]
fn every_closed_loop_point_obeys_littles_law() {
    let h100 = cat().chip("h100-sxm").unwrap();
    let s = {
        let mut s = scenario(
            "llama-3.3-70b",
            h100,
            tp(4),
            DType::Fp8,
            4_000,
            500,
            Batch::Fixed(1),
        )
        .setup();
        s.assumptions = s.assumptions.pin("max_seqs_per_replica", 64.0);
        s
    };
    let pool = |p: Parallelism| PoolConfig {
        chip: h100,
        parallelism: p,
    };
    let mut limiters = Vec::new();
    for batch in [1, 2, 8, 64, 65, 256, 1024] {
        for d in [
            Deployment::Aggregated {
                pool: pool(tp(4)),
                batch,
            },
            Deployment::Aggregated {
                pool: pool(Parallelism { dp: 2, ..tp(4) }),
                batch,
            },
            // A prefill pool as large as the decode pool, and one a quarter of it
            // (which caps the rate at large batches).
            Deployment::PrefillDecode {
                prefill: pool(tp(4)),
                decode: pool(tp(4)),
                batch,
            },
            Deployment::PrefillDecode {
                prefill: pool(tp(2)),
                decode: pool(Parallelism { dp: 4, ..tp(2) }),
                batch,
            },
        ] {
            let Ok(p) = evaluate(&s, &d) else { continue };
            let l = little(&p, 500.0);
            assert!(
                (l - 1.0).abs() < 1e-9,
                "{d:?}: X (TTFT + 499 TPOT) / C = {l}"
            );
            limiters.push(p.figures.limiter);
            // The waiting sits in TTFT, never in a negative part.
            let parts = p.ttft.parts;
            for (name, v) in parts.named() {
                assert!(v >= Seconds::ZERO, "{d:?}: {name} {v:?}");
            }
        }
    }
    // Both regimes of prefill/decode were met: the decode pool's, and a pool's that
    // caps it.
    use disagg_engine::disagg::Limiter;
    assert!(limiters.contains(&Limiter::DecodePool));
    assert!(limiters.contains(&Limiter::PrefillPool));
}

/// Every published closed-loop point the validation evaluates (a batch, no arrival
/// rate) obeys it too, on whatever axis and framework it states. A point that states
/// its benchmark's number of prompts reports the mean TTFT over them, first wave
/// included (MODEL.md 6.1.2); the law holds for its steady loop, the same point
/// without the number, whose TPOT and throughput it shares. A point read to its run's
/// last completion (MODEL.md 6.1.4) reports the run's rate, its drain included; the law
/// holds for its steady loop too, whose TPOT it shares.
#[test]
fn every_published_closed_loop_point_obeys_littles_law() {
    let table = BenchmarkTable::builtin().unwrap();
    let assumptions = Assumptions::default();
    let mut checked = 0;
    for point in table
        .point
        .iter()
        .filter(|p| p.batch.is_some() && p.rate.is_none())
    {
        let steady = validation::BenchmarkPoint {
            prompts: None,
            prompts_per_user: None,
            offline: None,
            ..point.clone()
        };
        let Ok(p) = validation::evaluate_point(cat(), &steady, &assumptions) else {
            continue;
        };
        if point.offline.is_some() {
            let run = validation::evaluate_point(cat(), point, &assumptions).unwrap();
            assert_eq!(run.figures.tpot, p.figures.tpot, "{}", point.id);
            assert!(
                run.figures.output_tok_s < p.figures.output_tok_s,
                "{}",
                point.id
            );
        }
        if point.prompts.is_some() || point.prompts_per_user.is_some() {
            let mixed = validation::evaluate_point(cat(), point, &assumptions).unwrap();
            assert_eq!(mixed.figures.tpot, p.figures.tpot, "{}", point.id);
            assert_eq!(
                mixed.figures.output_tok_s, p.figures.output_tok_s,
                "{}",
                point.id
            );
            assert!(
                (mixed.figures.ttft - mixed.ttft.mean()).value().abs() < 1e-12,
                "{}",
                point.id
            );
        }
        let osl = point.workload().osl as f64;
        if osl < 2.0 || p.figures.output_tok_s.value() <= 0.0 {
            continue;
        }
        let l = little(&p, osl);
        assert!(
            (l - 1.0).abs() < 1e-6,
            "{}: X (TTFT + (OSL - 1) TPOT) / C = {l}",
            point.id
        );
        checked += 1;
    }
    assert!(checked > 250, "{checked} points checked");
}
