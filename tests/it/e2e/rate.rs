//! A request rate, end to end: typed into its field it travels in the link, the page
//! says what an open loop is and how many deployments carry the rate, a bad value is
//! refused under the field, and a point's details answer at the rate (rate delivered,
//! concurrency held, TTFT and TPOT with their spreads), their figures opening the open
//! loop's chains.

use super::driver::Driver;

pub fn a_rate_answers_in_the_open_loop(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!(
        "{base}/?v=1&model=llama-3.1-8b&axis=agg&chips=h100-sxm&budget=8&isl=2000&osl=200"
    ));
    page.wait_ready();
    page.settle();
    assert_eq!(
        page.js("return document.getElementById('rate-note') === null;"),
        serde_json::json!(true),
        "a closed loop has no open-loop note"
    );
    // Out of bounds: refused under the field, naming it; the link keeps no rate.
    page.set_value("in-rate", "-4");
    let error = page.text("#in-rate-error");
    assert!(error.contains("request rate"), "{error}");
    // Three requests a second of 200 output tokens.
    page.set_value("in-rate", "3");
    page.settle();
    assert_eq!(page.text("#in-rate-error"), "");
    let href = page.href();
    assert!(href.contains("rate=3"), "{href}");
    let note = page.text("#rate-note");
    assert!(
        note.contains("Open loop: requests arrive at random"),
        "{note}"
    );
    assert!(note.contains("With 3.00 requests per second"), "{note}");
    page.click("#frontier-table button");
    page.wait_for(
        "the open-loop answer",
        "return document.getElementById('open-loop-answer') ? true : null;",
    );
    let answer = page.text("#open-loop-answer");
    assert!(
        answer.starts_with("At 3.00 requests per second")
            && answer.contains("requests in flight")
            && answer.contains("delivers 600 output tok/s")
            && answer.contains("p90"),
        "{answer}"
    );
    let figures = page.text("#detail .figures");
    assert!(
        figures.contains("request rate delivered")
            && figures.contains("3.00 req/s (600 output tok/s)"),
        "{figures}"
    );
    for bad in ["NaN", "inf"] {
        assert!(!figures.contains(bad) && !answer.contains(bad), "{bad}");
    }
    // The concurrency opens how it was found; TTFT the M/D/1 queue.
    page.open_figure("concurrency held (open loop)", "B = B_short + 1");
    page.open_figure("TTFT", "TTFT = W + t_pf + t_xfer + t_1");
    page.js("document.querySelectorAll('#chain-panel details.sub-chain').forEach(d => d.open = true); return true;");
    let all = page.text("#chain-panel");
    assert!(all.contains("W = u × t_pf / (2 × (1 - u))"), "{all}");
    assert!(all.contains("σ = λ / X_B"), "{all}");
    page.open_figure("TTFT p50 / p90", "TTFT_90 = W_90 + t_pf");
    // TPOT's p90: the other prompts' prefill steps inside a generation, arriving at
    // random (a Poisson count, so no cap at the round's other steps).
    let tpot = page.open_figure("TPOT p50 / p90", "TPOT_90 = max(0, TPOT - K × t / n");
    assert!(
        tpot.contains("z × K^0.5") && !tpot.contains("N - K"),
        "{tpot}"
    );
    // Static batches: chosen in their control, they travel in the link.
    page.set_value("in-sched", "static");
    page.settle();
    let href = page.href();
    assert!(
        href.contains("sched=static") && href.contains("rate=3"),
        "{href}"
    );
    page.close();
}
