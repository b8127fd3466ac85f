//! Replays a closed-loop serving benchmark step by step on one replica and reads each
//! run's metrics from it (mean and median TTFT and TPOT, per-user speed, output rate),
//! beside the engine's closed form and the published figures (`audit/AUDIT.md`, "A
//! closed loop's arrivals replayed step by step").
//!
//! The client is the benchmark's: `C` users start together, each sends its next prompt
//! the moment its last request ends, `prompts_per_user` prompts each, prompt and output
//! lengths drawn uniformly from `[ratio L, L]`. The server is a prefill-first
//! continuous-batching loop (SGLang's `get_next_batch_to_run`): when it has looked for
//! new requests (every `scheduler_recv_interval` steps) and prompts wait, a prompt step
//! takes them first come first served up to the token budget; otherwise every running
//! sequence gains a token. Step times are the engine's own: its decode step at each
//! batch and its prompt step at each number of prompts. Nothing is fitted.
//!
//! Run: `cargo run --release -p disagg-engine --example simulate_closed_loop`.

use disagg_engine::assumptions::Assumptions;
use disagg_engine::validation::{
    evaluate_point, BenchmarkPoint, BenchmarkTable, Framework, Metric, Role,
};
use disagg_engine::Catalogue;
use std::collections::VecDeque;

/// Lengths drawn uniformly from `[floor(ratio l), l]`, deterministically: the `k`-th
/// draw takes the fractional part of `k` times an irrational `step` (Weyl's
/// equidistributed sequence), so a replay is the same every time. Prompts and outputs
/// draw from sequences of their own, so that a request's two lengths are unrelated.
struct Lengths {
    k: u64,
    step: f64,
}

impl Lengths {
    fn new(step: f64) -> Lengths {
        Lengths { k: 0, step }
    }

    fn draw(&mut self, l: u32, ratio: f64) -> u32 {
        self.k += 1;
        let u = (self.k as f64 * self.step).fract();
        let lo = (ratio * l as f64).floor() as u32;
        lo + ((u * (l - lo + 1) as f64) as u32).min(l - lo)
    }
}

/// The engine's step times for one of `p`'s `replicas` replicas: decode at `b`
/// sequences, and one prompt step over `n` prompts.
struct Steps {
    decode: Vec<f64>,
    prefill: Vec<f64>,
}

fn steps(
    cat: &Catalogue,
    p: &BenchmarkPoint,
    a: &Assumptions,
    (replicas, users): (u32, u32),
    budget: u32,
) -> Steps {
    let isl = p.workload().isl;
    let probe = |batch: u32, tokens: Option<f64>| {
        let mut q = p.clone();
        q.batch = Some(batch * replicas);
        q.prompts_per_user = None;
        q.prompts = None;
        if let Some(t) = tokens {
            q.max_tokens_per_step = Some(t);
        }
        let e = evaluate_point(cat, &q, a).expect("probe evaluates");
        let g = e.generating_pool().expect("a generating pool").clone();
        (
            g.step.value(),
            g.costs.prefill.map_or(0.0, |c| c.total.value()),
        )
    };
    let decode = (1..=users).map(|b| probe(b, None).0).collect();
    let most = (budget / isl.max(1)).max(1);
    let prefill = (1..=most)
        .map(|n| probe(n, Some((n * isl) as f64)).1)
        .collect();
    Steps { decode, prefill }
}

struct Request {
    arrival: f64,
    first: f64,
    isl: u32,
    osl: u32,
    generated: u32,
    user: usize,
}

/// What one replica's replayed run gives: every request's TTFT and TPOT (its time after
/// the first token over the tokens after the first), and its output rate over the run.
struct Run {
    ttfts: Vec<f64>,
    tpots: Vec<f64>,
    output_tok_s: f64,
}

/// The replay of one replica's `users` users.
fn simulate(
    steps: &Steps,
    users: usize,
    prompts_per_user: u32,
    (isl, osl, ratio): (u32, u32, f64),
    budget: u32,
    recv_interval: u32,
    first_step: bool,
) -> Run {
    // The inverse golden ratio and sqrt(2) - 1.
    let mut draws = (
        Lengths::new(0.618_033_988_749_894_9),
        Lengths::new(0.414_213_562_373_095_1),
    );
    let mut left = vec![prompts_per_user; users];
    let mut arrivals: Vec<Request> = Vec::new();
    let send = |user: usize, at: f64, draws: &mut (Lengths, Lengths), left: &mut Vec<u32>| {
        if left[user] > 0 {
            left[user] -= 1;
            Some(Request {
                arrival: at,
                first: 0.0,
                isl: draws.0.draw(isl, ratio),
                osl: draws.1.draw(osl, ratio).max(1),
                generated: 0,
                user,
            })
        } else {
            None
        }
    };
    for u in 0..users {
        if let Some(r) = send(u, 0.0, &mut draws, &mut left) {
            arrivals.push(r);
        }
    }
    let mut waiting: VecDeque<Request> = VecDeque::new();
    let mut running: Vec<Request> = Vec::new();
    let mut ttfts = Vec::new();
    let mut tpots = Vec::new();
    let mut tokens_out = 0.0;
    let mut t = 0.0;
    let mut iteration: u64 = 0;
    let decode = |b: usize| steps.decode[(b.max(1) - 1).min(steps.decode.len() - 1)];
    let prefill_of = |tokens: u32| {
        // Linear in tokens between one mean prompt and the budget's worth.
        let per = steps.prefill.len();
        let mean_isl = budget as f64 / per as f64;
        let n = tokens as f64 / mean_isl;
        let lo = steps.prefill[0];
        let hi = steps.prefill[per - 1];
        if per == 1 {
            lo * n.max(1.0)
        } else {
            lo + (hi - lo) * (n - 1.0) / (per as f64 - 1.0)
        }
    };
    while !(arrivals.is_empty() && waiting.is_empty() && running.is_empty()) {
        if recv_interval <= 1 || iteration % recv_interval as u64 == 0 || running.is_empty() {
            let (now, later): (Vec<Request>, Vec<Request>) =
                arrivals.drain(..).partition(|r| r.arrival <= t);
            arrivals = later;
            let mut now = now;
            now.sort_by(|a, b| a.arrival.total_cmp(&b.arrival));
            waiting.extend(now);
        }
        iteration += 1;
        if !waiting.is_empty() {
            let mut tokens = 0;
            let mut batch = Vec::new();
            while let Some(r) = waiting.front() {
                if !batch.is_empty() && tokens + r.isl > budget {
                    break;
                }
                tokens += r.isl;
                batch.push(waiting.pop_front().expect("front"));
            }
            t += prefill_of(tokens);
            let after = running.len() + batch.len();
            for mut r in batch {
                let first = if first_step { t + decode(after) } else { t };
                ttfts.push(first - r.arrival);
                r.first = first;
                r.generated = 1;
                running.push(r);
            }
            continue;
        }
        if running.is_empty() {
            t = arrivals
                .iter()
                .map(|r| r.arrival)
                .fold(f64::INFINITY, f64::min)
                .max(t);
            continue;
        }
        t += decode(running.len());
        let mut still = Vec::with_capacity(running.len());
        for mut r in running.drain(..) {
            r.generated += 1;
            if r.generated >= r.osl {
                tokens_out += r.osl as f64;
                if r.osl > 1 {
                    tpots.push((t - r.first).max(0.0) / (r.osl - 1) as f64);
                }
                if let Some(next) = send(r.user, t, &mut draws, &mut left) {
                    arrivals.push(next);
                }
            } else {
                still.push(r);
            }
        }
        running = still;
    }
    Run {
        ttfts,
        tpots,
        output_tok_s: if t > 0.0 { tokens_out / t } else { 0.0 },
    }
}

/// The replay's figure for `metric`, in the table's units; `None` for a metric the
/// replay does not read.
fn read(run: &Run, metric: Metric, replicas: u32, chips: u32) -> Option<f64> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    Some(match metric {
        Metric::TtftMs => mean(&run.ttfts) * 1e3,
        Metric::TtftP50Ms => median(&run.ttfts) * 1e3,
        Metric::TpotMs => mean(&run.tpots) * 1e3,
        Metric::TpotP50Ms => median(&run.tpots) * 1e3,
        Metric::TokSUser => mean(&run.tpots.iter().map(|t| 1.0 / t).collect::<Vec<_>>()),
        Metric::OutputTokS => run.output_tok_s * replicas as f64,
        Metric::OutputTokSPerChip => run.output_tok_s * replicas as f64 / chips as f64,
        _ => return None,
    })
}

fn main() {
    let cat = Catalogue::builtin();
    let table = BenchmarkTable::builtin().expect("benchmark table");
    let base = Assumptions::default();
    let report = disagg_engine::validation::run(cat, &table, &base);
    println!("row        users  measured   engine           replay");
    // (metric kind, |error| of the engine, |error| of the replay) over the hold-out rows.
    let mut summary: Vec<(&str, f64, f64)> = Vec::new();
    for row in &report.rows {
        let p = &row.point;
        // The replayed scheduler is SGLang's (prefill first, prompt steps of their own);
        // TensorRT-LLM and vLLM mix prompt tokens into generation steps.
        let sglang = matches!(p.framework, Framework::Sglang);
        if !sglang || p.disaggregated() || p.prompts_per_user.is_none() {
            continue;
        }
        let Some(batch) = p.batch else { continue };
        let a = p.assumptions(&base);
        let replicas = (p.chips / (p.tp.unwrap_or(1) * p.pp.unwrap_or(1))).max(1);
        let users = (batch / replicas).max(1);
        let budget = a.prefill_chunk_tokens as u32;
        let steps = steps(cat, p, &base, (replicas, users), budget);
        let lengths = (p.isl, p.osl, p.length_range_ratio.unwrap_or(1.0));
        let ppu = p.prompts_per_user.unwrap_or(10.0) as u32;
        let first_step = std::env::var("SIM_NO_FIRST_STEP").is_err();
        let run = simulate(
            &steps,
            users as usize,
            ppu,
            lengths,
            budget,
            a.scheduler_recv_interval,
            first_step,
        );
        let Some(replayed) = read(&run, p.metric, replicas, p.chips) else {
            continue;
        };
        let err = (replayed - p.measured) / p.measured;
        let kind = match p.metric {
            Metric::TtftMs => "mean TTFT",
            Metric::TtftP50Ms => "median TTFT",
            Metric::TpotMs | Metric::TokSUser => "TPOT and tok/s per user",
            Metric::TpotP50Ms => "median TPOT",
            _ => "output",
        };
        if let (Some(e), Role::Holdout) = (row.error, p.role) {
            summary.push((kind, e.abs() * 100.0, err.abs() * 100.0));
        }
        println!(
            "{:<10} {:>5} {:>9.1} {:>8.1} ({:+5.0}%) {:>8.1} ({:+5.0}%)",
            p.id,
            users,
            p.measured,
            row.predicted.unwrap_or(f64::NAN),
            row.error.unwrap_or(f64::NAN) * 100.0,
            replayed,
            err * 100.0,
        );
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(f64::NAN)
    };
    for kind in [
        "mean TTFT",
        "median TTFT",
        "TPOT and tok/s per user",
        "median TPOT",
        "output",
    ] {
        let rows: Vec<&(&str, f64, f64)> = summary.iter().filter(|s| s.0 == kind).collect();
        println!(
            "hold-out SGLang {kind} rows ({}): median |error| engine {:.1}%, replay {:.1}%",
            rows.len(),
            median(rows.iter().map(|s| s.1).collect()),
            median(rows.iter().map(|s| s.2).collect()),
        );
    }
}
