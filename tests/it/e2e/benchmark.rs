//! How a benchmark reads the figures, end to end. Prompts per user: typed into their
//! field they travel in the link, a bad value is refused under the field, and a point's
//! mean TTFT then mixes in the benchmark's first wave, its chain saying so, while its
//! TPOT stays the steady loop's. A finite run (MLPerf Offline): its two settings travel
//! in the link, one alone is refused in words, a point's rate opens the drain, and a
//! split axis says it is for aggregated deployments.

use super::driver::{Driver, Session};

/// Opens the first frontier point and returns the text of its figure `name`.
fn first_point_figure(page: &Session, name: &str) -> String {
    page.click("#frontier-table button");
    page.wait_for(
        "the point's details",
        "return document.querySelector('#detail .figure-value') ? true : null;",
    );
    page.js_text(&format!(
        "const b = [...document.querySelectorAll('#detail .figure-value')]
             .find(b => b.parentElement.previousElementSibling.textContent === {name:?});
         return b ? b.textContent : '';"
    ))
}

pub fn prompts_per_user_move_the_mean_ttft(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!(
        "{base}/?v=1&model=llama-3.1-8b&axis=agg&chips=h100-sxm&budget=8&isl=4000&osl=200&batch=64"
    ));
    page.wait_ready();
    page.settle();
    let steady_ttft = first_point_figure(&page, "TTFT");
    let steady_tpot = first_point_figure(&page, "TPOT");
    assert!(!steady_ttft.is_empty() && !steady_tpot.is_empty());
    // Under one prompt a user: refused under the field, naming it.
    page.set_value("in-ppu", "0.5");
    let error = page.text("#in-ppu-error");
    assert!(error.contains("prompts per user"), "{error}");
    page.set_value("in-ppu", "10");
    page.settle();
    assert_eq!(page.text("#in-ppu-error"), "");
    let href = page.href();
    assert!(href.contains("ppu=10"), "{href}");
    let wave_ttft = first_point_figure(&page, "TTFT");
    assert_ne!(wave_ttft, steady_ttft, "the first wave left TTFT unchanged");
    assert_eq!(first_point_figure(&page, "TPOT"), steady_tpot);
    // The TTFT chain mixes the first wave into the steady loop's.
    page.open_figure("TTFT", "TTFT = TTFT_ss + w");
    let chain = page.text("#chain-panel");
    assert!(
        chain.contains("share of the requests in the benchmark's first wave"),
        "{chain}"
    );
    page.close();
}

pub fn a_finite_run_drains_on_the_aggregated_axis(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!(
        "{base}/?v=1&model=llama-3.1-8b&axis=agg&chips=h100-sxm&budget=8&isl=500&osl=200&batch=64"
    ));
    page.wait_ready();
    page.settle();
    // One setting alone: the chart says what is missing.
    page.set_value("in-runn", "2000");
    page.settle();
    page.wait_for(
        "the missing setting named",
        "const e = document.getElementById('chart-error');
         return e && e.textContent.includes('longest output') ? true : null;",
    );
    page.set_value("in-runk", "1000");
    page.settle();
    let href = page.href();
    assert!(
        href.contains("runn=2000") && href.contains("runk=1000"),
        "{href}"
    );
    assert!(!first_point_figure(&page, "output tok/s per chip").is_empty());
    page.open_figure("output tok/s per chip", "");
    page.js("document.querySelectorAll('#chain-panel details.sub-chain').forEach(d => d.open = true); return true;");
    let chain = page.text("#chain-panel");
    assert!(chain.contains("while its batch drains"), "{chain}");
    page.close();
    // On a split axis the run is refused in words, not dropped.
    let split = driver.session();
    split.open(&format!(
        "{base}/?v=1&model=llama-3.1-8b&axis=pd&chips=h100-sxm&budget=8&isl=500&osl=200&runn=2000&runk=1000"
    ));
    // (No chart comes, so no wait for one.)
    split.wait_for(
        "the split axis refusing the run",
        "const e = document.getElementById('chart-error');
         return e && e.textContent.includes('aggregated') ? true : null;",
    );
    split.close();
}
