//! Cost of ownership in the page: the electricity price, set in the assumptions
//! panel and carried by the link, moves the detail panel's ownership $/Mtok and never
//! its rental $/Mtok; the API break-even opens as a chain.

use super::driver::{Driver, Session};

/// The detail panel's value of the figure labelled `label`.
fn figure(page: &Session, label: &str) -> String {
    page.js_text(&format!(
        "const d = [...document.querySelectorAll('#detail .figure dt')].find(d => d.textContent === {label:?});
         return d ? d.nextElementSibling.innerText : '';"
    ))
}

fn wait_detail(page: &Session) {
    page.wait_for(
        "the detail panel",
        "const d = [...document.querySelectorAll('#detail .figure dt')].find(d => d.textContent === '$/Mtok output, owned');
         return d ? true : null;",
    );
}

pub(super) fn electricity_moves_ownership_only(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!(
        "{base}/?v=1&model=deepseek-v3&axis=agg&chips=h200&budget=8&isl=1000&osl=1000&capex=30000&kwh=0.05"
    ));
    page.wait_ready();
    page.click("#frontier-table button");
    wait_detail(&page);
    let rental = figure(&page, "$/Mtok output");
    let rental_in = figure(&page, "$/Mtok input");
    let owned = figure(&page, "$/Mtok output, owned");
    assert!(
        rental.starts_with('$') && owned.starts_with('$'),
        "{rental} / {owned}"
    );
    let link = page.js("return location.href;");
    let link = link.as_str().unwrap_or_default().to_string();
    let point = link
        .split('&')
        .find_map(|p| p.strip_prefix("point="))
        .unwrap_or_else(|| panic!("no point in {link}"))
        .to_string();

    // The electricity price, typed into the assumptions panel, reaches the link.
    page.click("#assumptions summary");
    let n = page.redraws();
    page.set_value("cost-kwh", "0.5");
    page.after_input("the sweep at the new electricity price", n);
    let dear = page.js("return location.href;");
    let dear = dear.as_str().unwrap_or_default().to_string();
    assert!(dear.contains("kwh=0.5"), "{dear}");

    // The same point under that link: ownership moved, rental did not.
    let without_point: String = dear
        .split('&')
        .filter(|p| !p.starts_with("point="))
        .collect::<Vec<_>>()
        .join("&");
    page.open(&format!("{without_point}&point={point}"));
    page.wait_ready();
    wait_detail(&page);
    assert_eq!(figure(&page, "$/Mtok output"), rental, "rental moved");
    assert_eq!(figure(&page, "$/Mtok input"), rental_in, "rental moved");
    let owned_dear = figure(&page, "$/Mtok output, owned");
    let num = |s: &str| s.trim_start_matches('$').parse::<f64>().unwrap_or(f64::NAN);
    assert!(
        num(&owned_dear) > num(&owned),
        "ownership did not rise with electricity: {owned} then {owned_dear}"
    );

    // DeepSeek-V3 has a public API price: the break-even opens its chain.
    let row = figure(&page, "break-even vs API (tokens/month)");
    // The row names the chosen API and why: the cheapest of DeepSeek-V3's rows.
    assert!(
        row.contains("DeepSeek's deepseek-chat (the cheapest of 2 listed"),
        "{row}"
    );
    let formula = page.open_figure("break-even vs API (tokens/month)", "V*");
    assert!(formula.contains("p_api"), "{formula}");
    page.js("document.querySelectorAll('#chain-panel details.sub-chain').forEach(d => d.open = true); return true;");
    let chain = page.text("#chain-panel");
    assert!(
        chain.contains("api-docs.deepseek.com") && chain.contains("tokens/month"),
        "{chain}"
    );
    page.close();
}
