//! An open-loop point explained (`predict --explain --rate R`, the page's request-rate
//! field): the closed loop's chains at the concurrency the rate holds, then how that
//! concurrency was found, the share of its capacity the rate uses, and TTFT as the
//! M/D/1 queue in front of the prefill steps (Pollaczek-Khinchine mean, Kingman tail),
//! every number recomputable from the inputs each chain lists (`audit/MODEL.md` 6.1).

use super::explain::{explain, Explained};
use super::open_loop::{concurrency, deliver, prefill_utilisation, served, Held};
use super::topology::topology;
use super::{Axis, Deployment, Setup};
use crate::error::Result;
use crate::explain::{diff, ln, max, min, num, product, quotient, sum, var, Chain, Source};
use crate::units::RequestsPerSecond;

/// The highest utilisation the queue is taken at (`open_loop_ttft` clamps to it): the
/// M/D/1 wait grows without bound as `u` reaches 1.
const MOST_UTILISATION: f64 = 0.999;

/// Evaluates `deployment` under Poisson arrivals at `rate` and opens its figures: the
/// closed loop's chains where the open loop keeps them (TPOT, tok/s per user, memory,
/// max batch), the rates, prices and energy rescaled to the rate delivered, and TTFT,
/// its p50 and p90 and the concurrency held as chains of their own.
pub fn explain_at_rate(
    setup: &Setup,
    deployment: &Deployment,
    rate: RequestsPerSecond,
) -> Result<Explained> {
    let held = concurrency(setup, deployment, rate)?;
    let closed = explain(setup, &deployment.with_batch(held.batch))?;
    let below = match held.batch {
        1 => None,
        b => Some(served(
            setup,
            &super::evaluate(setup, &deployment.with_batch(b - 1))?,
        )),
    };
    let point = deliver(setup, deployment, closed.point.clone(), rate, &held);
    let osl = setup.workload.osl as f64;
    let b = held.batch;
    let x_out = closed
        .chains
        .iter()
        .flat_map(|c| c.inputs.iter())
        .find_map(|i| match &i.source {
            Source::Derived { chain } if chain.symbol == "X_out" => Some((**chain).clone()),
            _ => None,
        });
    let mut serves = Chain::new(
        &format!("request rate at {b} concurrent requests (closed loop)"),
        "X_B",
        "req/s",
        "6.1",
        quotient(var("X_out"), var("OSL")),
        held.serves.0,
    );
    serves = match x_out {
        Some(c) => serves.derived("output tok/s at that concurrency", c),
        None => serves.input(
            "X_out",
            "output tok/s at that concurrency",
            held.closed.figures.output_tok_s.0,
            "tok/s",
            Source::rule("the closed loop's output rate (MODEL.md 6.1)"),
        ),
    }
    .with_osl(osl);
    let share = Chain::new(
        "share of that rate the arrivals use",
        "σ",
        "1",
        "6.1",
        quotient(var("λ"), var("X_B")),
        rate / held.serves,
    )
    .input(
        "λ",
        "requests arriving per second",
        rate.0,
        "req/s",
        Source::workload("rate"),
    )
    .derived("request rate at the concurrency held", serves);
    let held_chain = held_chain(&held, below, rate);
    let u_closed = prefill_utilisation(&held.closed);
    let u_value = (u_closed * (rate / held.serves)).clamp(0.0, MOST_UTILISATION);
    let busy = Chain::new(
        "share of time the prefill steps are busy",
        "u",
        "1",
        "6.1",
        min([product([var("u_B"), var("σ")]), num(MOST_UTILISATION)]),
        u_value,
    )
    .input(
        "u_B",
        "the same share in the closed loop at the concurrency held",
        u_closed,
        "1",
        Source::rule(match held.closed.axis {
            Axis::PrefillDecode => "the prefill pool's utilisation (MODEL.md 6.3)",
            _ => "the round's prefill share: prefill steps' time over the round (MODEL.md 6.1)",
        }),
    )
    .derived("share of capacity used", share.clone());
    let parts = point.ttft.parts;
    let part = |c: Chain, name: &str, meaning: &str, v: f64, why: &str| {
        c.input(name, meaning, v, "s", Source::rule(why))
    };
    let wait = part(
        Chain::new(
            "mean wait for the prefill steps (M/D/1, Pollaczek-Khinchine)",
            "W",
            "s",
            "6.1",
            quotient(
                product([var("u"), var("t_pf")]),
                product([num(2.0), diff(num(1.0), var("u"))]),
            ),
            parts.prefill_wait.0,
        ),
        "t_pf",
        "one prefill step (the fixed service time)",
        parts.prefill.0,
        "the step that prefills a request's prompt, from the closed loop at the concurrency held",
    )
    .derived("share of time the prefill steps are busy", busy.clone());
    let after = |c: Chain| {
        let c = part(
            c,
            "t_pf",
            "own prefill",
            parts.prefill.0,
            "the step that prefills a request's prompt",
        );
        let c = part(
            c,
            "t_xfer",
            "KV transfer the request waits for",
            parts.transfer.0,
            "the exposed part of the KV cache's trip (MODEL.md 6.3; 0 on one pool)",
        );
        part(
            c,
            "t_1",
            "first step",
            parts.first_step.0,
            "the generation step the first token waits for",
        )
    };
    let ttft = after(Chain::new(
        "TTFT",
        "TTFT",
        "s",
        "6.1",
        sum([var("W"), var("t_pf"), var("t_xfer"), var("t_1")]),
        point.figures.ttft.0,
    ))
    .derived("mean wait for the prefill steps", wait.clone());
    let mut percentiles = Vec::new();
    // The share of requests above each quantile, as a reader writes it (`1 - 0.9` is
    // not 0.1 in floating point).
    for (pct, q, above) in [(50, 0.5, 0.5), (90, 0.9, 0.1)] {
        let w_q = Chain::new(
            &format!("p{pct} wait (Kingman's exponential tail)"),
            &format!("W_{pct}"),
            "s",
            "6.1",
            max([
                num(0.0),
                product([
                    quotient(var("W"), var("u")),
                    ln(quotient(var("u"), num(above))),
                ]),
            ]),
            point.ttft.wait.quantile(q).0,
        )
        .derived("mean wait", wait.clone())
        .derived("share of time the prefill steps are busy", busy.clone());
        let sym = format!("W_{pct}");
        percentiles.push(
            after(Chain::new(
                &format!("p{pct} TTFT"),
                &format!("TTFT_{pct}"),
                "s",
                "6.1",
                sum([var(&sym), var("t_pf"), var("t_xfer"), var("t_1")]),
                point.ttft.quantile(q).0,
            ))
            .derived(&format!("wait of the p{pct} request"), w_q),
        );
    }
    let mut chains = vec![ttft];
    let f = &point.figures;
    // The token rates as delivered, for the cost chains, which are opened afresh from
    // the open loop's own pools (their busy shares fell with the arrivals, and so did
    // their power): rescaling the closed loop's would miss that.
    let rate = |name: &str, value: f64| {
        closed
            .chains
            .iter()
            .flat_map(|c| c.walk())
            .find(|c| c.quantity == name)
            .map(|c| rescaled(c.clone(), &share, value, true, b))
    };
    let rates = rate("input tok/s", f.input_tok_s.0).zip(rate("output tok/s", f.output_tok_s.0));
    let is_cost = |q: &str| {
        q.starts_with("energy per") || q.starts_with("owning the") || q.starts_with("ownership ")
    };
    let closed_tpot = closed.chains.iter().find(|c| c.symbol == "TPOT").cloned();
    for c in closed.chains.into_iter().skip(1) {
        if is_cost(&c.quantity) {
            continue;
        }
        let scaled = match c.quantity.as_str() {
            "output tok/s per chip" => Some((f.output_tok_s_per_chip.0, true)),
            "input tok/s per chip" => Some((f.input_tok_s_per_chip.0, true)),
            "output $/Mtok" => f.usd_per_mtok_output.map(|v| (v.0, false)),
            "input $/Mtok" => f.usd_per_mtok_input.map(|v| (v.0, false)),
            _ => None,
        };
        if c.quantity == "p90 TTFT" {
            // The open loop opens its own percentiles below (its queue, not the closed
            // loop's).
            continue;
        }
        if c.quantity == "p90 TPOT" {
            // Arrivals at random spread TPOT as a Poisson count, not the closed loop's
            // binomial one: the same mean, opened afresh.
            chains.extend(closed_tpot.clone().and_then(|m| point.tpot.p90_chain(m)));
            continue;
        }
        chains.push(match scaled {
            Some((value, rate_like)) => rescaled(c, &share, value, rate_like, b),
            None => c,
        });
    }
    if let Some((input, output)) = rates {
        let costed: Vec<_> = deployment
            .pools()
            .into_iter()
            .filter_map(|(role, cfg)| point.pool(role).map(|r| (r, cfg.chip)))
            .collect();
        let cost = &setup.assumptions.cost;
        chains.extend(crate::cost::explain::chains(
            &costed, f, cost, &input, &output,
        ));
    }
    chains.extend(percentiles);
    chains.push(held_chain);
    let topology = topology(setup, deployment, &point);
    Ok(Explained {
        point,
        chains,
        topology,
    })
}

/// A closed-loop figure at the concurrency held, delivered at the arrival rate: a
/// token rate times `σ`, a price or energy per token over it.
fn rescaled(closed: Chain, share: &Chain, value: f64, rate_like: bool, b: u32) -> Chain {
    let inner = format!("{}_B", closed.symbol);
    let formula = if rate_like {
        product([var("σ"), var(&inner)])
    } else {
        quotient(var(&inner), var("σ"))
    };
    let quantity = closed.quantity.clone();
    let symbol = closed.symbol.clone();
    let at_b = Chain {
        quantity: format!("{quantity} at {b} concurrent requests (closed loop)"),
        symbol: inner,
        ..closed
    };
    Chain::new(&quantity, &symbol, at_b.unit, "6.1", formula, value)
        .derived("share of capacity used", share.clone())
        .derived("the same at the concurrency held", at_b)
}

/// How the concurrency was found: one more than the largest that falls short of the
/// rate (the search's bracket, with both rates, in the source's words).
fn held_chain(held: &Held, below: Option<RequestsPerSecond>, rate: RequestsPerSecond) -> Chain {
    let b = held.batch;
    let why = match below {
        Some(x) => format!(
            "at {} concurrent requests the deployment serves {:.6} req/s, short of λ = {} req/s; at {b} it serves {:.6} req/s (bisection over 1 to {}, the most its memory and engine hold)",
            b - 1,
            x.0,
            rate.0,
            held.serves.0,
            held.most
        ),
        None => format!(
            "one request at a time already serves {:.6} req/s, at least λ = {} req/s",
            held.serves.0, rate.0
        ),
    };
    Chain::new(
        "concurrent requests the arrivals hold (the smallest that keeps up)",
        "B",
        "requests",
        "6.1",
        sum([var("B_short"), num(1.0)]),
        b as f64,
    )
    .input(
        "B_short",
        "the largest concurrency that serves fewer requests per second than arrive",
        (b - 1) as f64,
        "requests",
        Source::rule(why),
    )
}
