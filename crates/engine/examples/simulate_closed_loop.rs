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
use disagg_engine::disagg::finite_run::drain_loss;
use disagg_engine::units::Seconds;
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
/// the first token over the tokens after the first), its output rate over the whole run
/// (the harness's: tokens over the time from the first prompt to the last completion)
/// and over the middle half of its completions, where neither the first wave nor the
/// drain lies.
struct Run {
    ttfts: Vec<f64>,
    tpots: Vec<f64>,
    output_tok_s: f64,
    middle_tok_s: f64,
}

/// Output tokens per second between the completions a quarter and three quarters of
/// the way through `done` (each completion's time and the tokens completed by then).
fn middle_rate(done: &[(f64, f64)]) -> f64 {
    let n = done.len();
    let ((t0, k0), (t1, k1)) = (done[n / 4], done[(3 * n / 4).min(n - 1)]);
    if t1 > t0 {
        (k1 - k0) / (t1 - t0)
    } else {
        f64::NAN
    }
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
    let mut done: Vec<(f64, f64)> = Vec::new();
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
                done.push((t, tokens_out));
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
        middle_tok_s: if done.is_empty() {
            f64::NAN
        } else {
            middle_rate(&done)
        },
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
    // Per run: its id, users per replica, and the share of its steady rate the whole
    // run loses, replayed and by MODEL.md 6.1.4's uniform-phase drain.
    let mut drains: Vec<(String, u32, f64, f64)> = Vec::new();
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
        if matches!(p.metric, Metric::OutputTokS | Metric::OutputTokSPerChip) {
            let closed = uniform_phase_loss(&steps, users, ppu, lengths, run.middle_tok_s);
            let replay = 1.0 - run.output_tok_s / run.middle_tok_s;
            drains.push((p.id.clone(), users, replay, closed));
        }
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
    println!("\nthe run to its last completion against its middle half (MODEL.md 6.1.4):");
    println!("run        users  replay loss  uniform-phase drain");
    for (id, users, replay, closed) in &drains {
        println!(
            "{:<10} {:>5} {:>10.2}% {:>15.2}%",
            id,
            users,
            replay * 100.0,
            closed * 100.0
        );
    }
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

/// The share of a replica's steady rate `middle` (output tokens per second) that MODEL.md
/// 6.1.4's drain takes from a run of `prompts_per_user` prompts for each of `users`
/// users, were the users' phases spread evenly when the last prompt is admitted:
/// `L = (t_1 - s)(K - E[R])` with `K` the longest output and `E[R] = E[X^2] / (2 E[X])`
/// for outputs uniform on `[ratio L, L]`, against the `T = N E[X] / middle` the run's
/// tokens take at the steady rate.
fn uniform_phase_loss(
    steps: &Steps,
    users: u32,
    prompts_per_user: u32,
    (_, osl, ratio): (u32, u32, f64),
    middle: f64,
) -> f64 {
    let (hi, lo) = (osl as f64, (ratio * osl as f64).floor());
    let mean = (lo + hi) / 2.0;
    let square = (lo * lo + lo * hi + hi * hi) / 3.0;
    let one = Seconds::new(steps.decode[0]);
    let full = Seconds::new(steps.decode[(users as usize).max(1) - 1]);
    let loss = drain_loss(one, full, users as f64, hi, square / (2.0 * mean)).value();
    let t = (prompts_per_user * users) as f64 * mean / middle;
    loss / (t + loss)
}
