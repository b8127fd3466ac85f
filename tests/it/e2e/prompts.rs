//! A benchmark's prompts per user, end to end: typed into its field they travel in the
//! link, a bad value is refused under the field, and a point's mean TTFT then mixes in
//! the benchmark's first wave, its chain saying so, while its TPOT stays the steady
//! loop's.

use super::driver::{Driver, Session};
use std::time::Duration;

fn settle(page: &Session) {
    std::thread::sleep(Duration::from_millis(300));
    page.wait_for(
        "the sweep to finish",
        "return document.getElementById('status').dataset.sweeping === 'false' ? true : null;",
    );
}

/// Opens the first frontier point and returns the text of its figure `name`.
fn first_point_figure(page: &Session, name: &str) -> String {
    page.click("#frontier-table button");
    page.wait_for(
        "the point's details",
        "return document.querySelector('#detail .figure-value') ? true : null;",
    );
    page.js(&format!(
        "const b = [...document.querySelectorAll('#detail .figure-value')]
             .find(b => b.parentElement.previousElementSibling.textContent === {name:?});
         return b ? b.textContent : '';"
    ))
    .as_str()
    .unwrap_or_default()
    .to_string()
}

pub fn prompts_per_user_move_the_mean_ttft(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!(
        "{base}/?v=1&model=llama-3.1-8b&axis=agg&chips=h100-sxm&budget=8&isl=4000&osl=200&batch=64"
    ));
    page.wait_ready();
    settle(&page);
    let steady_ttft = first_point_figure(&page, "TTFT");
    let steady_tpot = first_point_figure(&page, "TPOT");
    assert!(!steady_ttft.is_empty() && !steady_tpot.is_empty());
    // Under one prompt a user: refused under the field, naming it.
    page.set_value("in-ppu", "0.5");
    let error = page.text("#in-ppu-error");
    assert!(error.contains("prompts per user"), "{error}");
    page.set_value("in-ppu", "10");
    settle(&page);
    assert_eq!(page.text("#in-ppu-error"), "");
    let href = page
        .js("return location.href;")
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(href.contains("ppu=10"), "{href}");
    let wave_ttft = first_point_figure(&page, "TTFT");
    assert_ne!(wave_ttft, steady_ttft, "the first wave left TTFT unchanged");
    assert_eq!(first_point_figure(&page, "TPOT"), steady_tpot);
    // The TTFT chain mixes the first wave into the steady loop's.
    page.js(
        "const b = [...document.querySelectorAll('#detail .figure-value')]
             .find(b => b.parentElement.previousElementSibling.textContent === 'TTFT');
         b.click(); return true;",
    );
    page.wait_for(
        "TTFT's chain",
        "const f = document.querySelector('#chain-panel .chain .formula');
         return f && f.textContent.startsWith('TTFT = TTFT_ss + w') ? true : null;",
    );
    let chain = page.text("#chain-panel");
    assert!(
        chain.contains("share of the requests in the benchmark's first wave"),
        "{chain}"
    );
    page.close();
}
