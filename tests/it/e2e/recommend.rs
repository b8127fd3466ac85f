//! The recommend view end to end: `?view=recommend` with limits and a rate searches in
//! the worker, shows a ranked table whose first row meets the limits the inputs show,
//! the minimum hardware and the chips left out with why; a demand in users searches
//! again and travels in the link.

use super::driver::{Driver, Session};
use serde_json::json;

/// Milliseconds from a cell or input ("499 ms", "1,050 ms", "500").
fn ms(text: &str) -> f64 {
    let t = text.trim().replace(',', "");
    let (v, unit) = match t.strip_suffix(" ms") {
        Some(v) => (v, 1.0),
        None => match t.strip_suffix(" s") {
            Some(v) => (v, 1000.0),
            None => (t.as_str(), 1.0),
        },
    };
    v.trim()
        .parse::<f64>()
        .unwrap_or_else(|_| panic!("not a time: {text:?}"))
        * unit
}

fn value(page: &Session, id: &str) -> String {
    page.js_text(&format!(
        "return document.getElementById({}).value;",
        json!(id)
    ))
}

fn wait_table(page: &Session) {
    page.wait_for(
        "the recommend table",
        "return document.querySelector('#recommend-table tbody tr') !== null
                && document.getElementById('recommend-busy') === null ? true : null;",
    );
}

pub fn the_first_deployment_meets_the_limits_shown(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!(
        "{base}/?v=1&model=llama-3.3-70b&isl=1000&osl=1000&ttft=500&tpot=30&rate=10&view=recommend&rec.chips=h100-sxm,h200,b200,groq-lpu"
    ));
    wait_table(&page);
    assert_eq!(
        page.js("return [document.querySelector('main.layout').hidden,
                        document.getElementById('view-recommend').getAttribute('aria-pressed')];"),
        json!([true, "true"])
    );
    let (ttft_limit, tpot_limit) = (ms(&value(&page, "rec-ttft")), ms(&value(&page, "rec-tpot")));
    assert_eq!((ttft_limit, tpot_limit), (500.0, 30.0));
    let ttft = ms(&page.text("#recommend-table tbody tr .rec-ttft"));
    let tpot = ms(&page.text("#recommend-table tbody tr .rec-tpot"));
    assert!(ttft <= ttft_limit, "first row TTFT {ttft} ms");
    assert!(tpot <= tpot_limit, "first row TPOT {tpot} ms");
    let minimum = page.text("#recommend-minimum");
    assert!(minimum.starts_with("Minimum hardware: "), "{minimum}");
    // How far off each row's latencies may be, once the validation job is in: every
    // row's two medians, and the minimum hardware's bands in full.
    page.wait_for(
        "the bands of the ranked rows",
        "const c = [...document.querySelectorAll('#recommend-table tbody td.rec-ttft-band, #recommend-table tbody td.rec-tpot-band')];
         return c.length > 0 && c.every(x => x.innerText.startsWith('±')) ? true : null;",
    );
    let bands = page.js(
        "return [...document.querySelectorAll('#recommend-minimum-error li')].map(l => l.innerText);",
    );
    let bands: Vec<String> = serde_json::from_value(bands).unwrap();
    assert_eq!(bands.len(), 2, "{bands:?}");
    assert!(
        bands[0].starts_with("Error of the TTFT: ±")
            && bands[1].starts_with("Error of the TPOT: ±"),
        "{bands:?}"
    );
    assert!(
        bands.iter().all(|b| b.contains("hold-out points")),
        "{bands:?}"
    );
    let rejected = page.text("#recommend-rejected");
    assert!(
        rejected.contains("Groq") && rejected.contains("memory"),
        "{rejected}"
    );
    for word in ["NaN", "inf"] {
        assert!(!page.text("#recommend").contains(word), "{word} on screen");
    }
    // A demand in users replaces the rate, searches again, and lands in the link.
    page.set_value("rec-users", "64");
    page.wait_for(
        "the search for 64 users",
        "const s = document.getElementById('recommend-summary');
         return s && s.innerText.includes('64 concurrent users')
                && document.getElementById('recommend-busy') === null ? true : null;",
    );
    let link = page.js("return location.search;");
    let link = link.as_str().unwrap_or_default();
    assert!(
        link.contains("view=recommend") && link.contains("rec.users=64"),
        "{link}"
    );
    let tpot = ms(&page.text("#recommend-table tbody tr .rec-tpot"));
    assert!(tpot <= tpot_limit, "first row TPOT {tpot} ms for users");
    let serious = page.accessibility_violations();
    assert!(serious.is_empty(), "{serious:?}");
    page.close();
}
