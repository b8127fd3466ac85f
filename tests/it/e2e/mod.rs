//! End-to-end: the release page in headless Chromium, driven through WebDriver.
//!
//! Builds nothing itself: `scripts/test.sh` runs `trunk build --release` first and then
//! this test with `--ignored` (it needs chromedriver, Chromium and `dist/`). It serves
//! `dist/` on loopback with a small file server, starts chromedriver, and speaks the
//! WebDriver protocol over plain HTTP, so it needs no extra crates.
//!
//! It clicks the axis and chips and checks that the canvas pixels and the callout
//! change, opens the copied link (with the selected point) in a fresh browser and finds
//! the same view, opens a hostile link and finds notices and a working chart, checks
//! latency limits and a fixed batch, colour by chip and its key, the table of every
//! drawn point, the exports against the drawn points, a 390 px phone, the axe-core
//! accessibility audit, and the largest sweep in the worker; and it reports the page's
//! own input-to-redraw measurements and the longest main-thread task.

mod accessibility;
mod benchmark;
mod bundle;
mod chart;
mod compare;
mod cost;
mod deploy;
mod desk;
mod docs;
mod driver;
mod error_band;
mod explain;
mod export;
mod own;
mod phones;
mod precision;
mod rate;
mod recommend;
mod topology;
mod validation_point;
mod validation_sort;
mod validation_view;
mod worker;

use driver::{dist, serve, Driver};
use serde_json::json;

#[test]
#[ignore = "needs dist/ from `trunk build --release`, Chromium and chromedriver; run by scripts/test.sh"]
fn the_release_page_works_end_to_end() {
    let base = serve(dist());
    let driver = Driver::start();
    let page = driver.session();

    // A fresh browser opens the defaults and draws them, under the page's
    // Content-Security-Policy (the wasm loader runs only if its hash is stated).
    page.open(&format!("{base}/"));
    page.wait_ready();
    assert!(!page.blank(), "the chart is blank");
    let policy = page.js(
        "const m = document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]'); return m ? m.content : '';",
    );
    let policy = policy.as_str().unwrap_or_default();
    assert!(
        policy.contains("default-src 'self'") && policy.contains("'wasm-unsafe-eval'"),
        "policy: {policy}"
    );
    // Nothing the page loads comes from anywhere but its own origin.
    let foreign = page.js(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(u => !u.startsWith(location.origin));",
    );
    assert_eq!(foreign, json!([]), "requests outside the origin: {foreign}");
    let icon =
        page.js("const l = document.querySelector('link[rel=icon]'); return l ? l.href : '';");
    assert!(
        icon.as_str().unwrap_or_default().ends_with(".svg"),
        "favicon: {icon}"
    );
    let canvas_pd = page.canvas();
    let callout_pd = page.text("#callout");
    assert!(callout_pd.contains("prefill/decode"), "{callout_pd}");
    // The verdict: one sentence per measure, measure first, in one vocabulary; the why
    // is folded away, outside the region a screen reader announces.
    let verdict = page.text("#callout-verdict");
    assert!(
        verdict.contains("Tok/s per chip at ") && verdict.contains("$/Mtok at "),
        "{verdict}"
    );
    for word in ["homogeneous", "heterogeneous", "-0.0", "NaN"] {
        assert!(!callout_pd.contains(word), "{word} in {callout_pd}");
    }
    assert_eq!(
        page.js("const v = document.getElementById('callout-verdict');
                 return [v.getAttribute('aria-live'), v.querySelector('.why') === null,
                         document.getElementById('callout').hasAttribute('aria-live'),
                         document.getElementById('callout-why').open];"),
        json!(["polite", true, false, false])
    );
    assert!(
        !callout_pd.contains("-bound"),
        "the why shows unasked: {callout_pd}"
    );
    page.click("#callout-why summary");
    let why = page.text("#callout-why");
    assert!(why.contains("-bound"), "{why}");
    page.click("#callout-why summary");

    // The axes side by side, on request: a row per axis, the dense default model's
    // expert split marked as not applying.
    page.click("#compare-axes");
    page.wait_for(
        "the axes table",
        "return document.getElementById('axes-table') ? true : null;",
    );
    let axes = page.text("#axes-table");
    for row in [
        "aggregated",
        "prefill/decode",
        "attention/expert",
        "speculative",
    ] {
        assert!(axes.contains(row), "{row} missing: {axes}");
    }
    assert!(axes.contains("does not apply"), "{axes}");
    assert!(axes.contains("than aggregated"), "{axes}");

    // Change the axis: the chart and the callout follow.
    let n = page.redraws();
    page.click("#axis-spec");
    page.after_input("the speculative sweep", n);
    // The comparison belonged to the old scenario and is gone.
    assert_eq!(
        page.js("return document.getElementById('axes-table') === null;"),
        json!(true)
    );
    let callout_spec = page.text("#callout");
    assert!(callout_spec.contains("speculative"), "{callout_spec}");
    assert_ne!(callout_spec, callout_pd);
    let canvas_spec = page.canvas();
    assert_ne!(
        canvas_spec, canvas_pd,
        "the canvas did not change with the axis"
    );

    // Change the chips: add GB200, drop MI300X.
    let n = page.redraws();
    page.click("#chip-gb200");
    page.after_input("the sweep with GB200", n);
    let n = page.redraws();
    page.click("#chip-mi300x");
    page.after_input("the sweep without MI300X", n);
    assert_eq!(page.text("#chip-count"), "5");
    assert_ne!(
        page.canvas(),
        canvas_spec,
        "the canvas did not change with the chips"
    );
    let callout_chips = page.text("#callout");

    // Click a point: the detail panel opens with both pools.
    page.click("#frontier-table button");
    page.wait_for(
        "the detail panel",
        "return document.getElementById('detail') ? true : null;",
    );
    let detail = page.text("#detail");
    for needle in ["TTFT", "TPOT", "memory per chip", "bottleneck"] {
        assert!(detail.contains(needle), "detail lacks {needle}: {detail}");
    }
    // On the speculative axis, a drafting point opens beside its twin without
    // speculation at the same batch; a point that does not draft has none.
    let gain = page.text("#speculation-gain");
    assert_eq!(
        gain.contains("Without speculation, at the same batch"),
        detail.contains("draft"),
        "{gain} / {detail}"
    );
    page.click("#detail .close");
    page.wait_for(
        "the detail panel to close",
        "return document.getElementById('detail') ? null : true;",
    );
    page.js(
        "const b = [...document.querySelectorAll('#frontier-table button')]
                 .find(b => b.textContent.includes('draft'));
             b.click(); return true;",
    );
    page.wait_for(
        "the detail of a drafting point",
        "return document.getElementById('speculation-gain') ? true : null;",
    );
    let gain = page.text("#speculation-gain");
    assert!(gain.contains("speculation gives "), "{gain}");
    // How sure: the measured error on published points like this one.
    let sure = page.text("#measured-error");
    assert!(
        sure.contains("error on published points for ") && sure.contains("(hold-out)"),
        "{sure}"
    );
    assert!(page.text("#callout-error").starts_with("How sure: "));
    // The open point's row is marked; Escape closes the panel and the focus returns
    // to the row's button, not to the page.
    let opener = page.js(
        "const r = document.querySelector('#frontier-table tr[aria-current=true]');
         return r ? r.querySelector('button').id : null;",
    );
    assert!(
        opener.as_str().is_some_and(|id| id.starts_with("open-")),
        "no marked row: {opener}"
    );
    page.js(
        "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));
         return true;",
    );
    page.wait_for(
        "Escape to close the detail",
        "return document.getElementById('detail') ? null : true;",
    );
    assert_eq!(page.js("return document.activeElement.id;"), opener);
    // A skip link is the first stop of the keyboard and leads to the results.
    assert_eq!(
        page.js(
            "const f = document.querySelector('a[href], button, input, select');
                 return [f.className, f.getAttribute('href')];"
        ),
        json!(["skip-link", "#results"])
    );
    page.click(&format!("#{}", opener.as_str().unwrap_or_default()));
    page.wait_for(
        "the detail panel again",
        "return document.getElementById('detail') ? true : null;",
    );

    // With the panel open, copy the link and open it in a fresh browser: the same
    // view, the same point open.
    let detail_title = page.text("#detail-title");
    page.click("#copy-link");
    let link = page
        .js("return document.getElementById('share-link').value;")
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        link.contains("axis=spec") && link.contains("gb200") && link.contains("&point="),
        "{link}"
    );
    let address = page.js("return location.href;");
    assert_eq!(
        address.as_str(),
        Some(link.as_str()),
        "the address bar is the link"
    );
    let canvas_here = page.canvas();
    let fresh = driver.session();
    fresh.open(&link);
    fresh.wait_ready();
    assert_eq!(fresh.text("#callout"), callout_chips);
    assert_eq!(
        fresh.js("return document.getElementById('axis-spec').checked;"),
        json!(true)
    );
    assert_eq!(fresh.text("#chip-count"), "5");
    fresh.wait_for(
        "the linked point's details",
        "return document.getElementById('detail') ? true : null;",
    );
    assert_eq!(fresh.text("#detail-title"), detail_title);
    assert_eq!(
        fresh.canvas(),
        canvas_here,
        "the link drew a different chart"
    );
    assert!(
        fresh.text("#notices").is_empty(),
        "a clean link raised notices"
    );
    fresh.close();

    // A hostile link: notices, and a page that still draws and responds.
    let hostile = driver.session();
    hostile.open(&format!(
        "{base}/?v=9&model=gpt-9&isl=-5&osl=99999999999999999999&chips=h200,warp-drive\
         &budget=0&acc=NaN&k=400&target=inf&axis=%3Cscript%3Ealert(1)%3C/script%3E&%E0%A4=%"
    ));
    hostile.wait_ready();
    let notices = hostile.text("#notices");
    for needle in ["gpt-9", "isl", "warp-drive", "budget", "axis"] {
        assert!(
            notices.contains(needle),
            "no notice about {needle}: {notices}"
        );
    }
    assert!(!hostile.blank(), "the hostile link left a blank chart");
    let n = hostile.redraws();
    hostile.click("#axis-agg");
    hostile.after_input("a sweep after the hostile link", n);
    hostile.click("#dismiss-notices");
    hostile.wait_for(
        "the notices to go",
        "return document.getElementById('notices') ? null : true;",
    );

    // Damaged saved state is ignored with a notice.
    hostile.js(
        "localStorage.setItem('disagg-explorer/preferences/v1', '{not json');
         localStorage.setItem('disagg-explorer/scenario/v1', 'model=%%%&isl=zero');
         return true;",
    );
    hostile.open(&format!("{base}/"));
    hostile.wait_ready();
    let notices = hostile.text("#notices");
    assert!(
        notices.contains("preferences") && notices.contains("saved scenario"),
        "{notices}"
    );
    hostile.close();

    // Latency limits in a link: the fields show them, and the verdict and the chart
    // follow (only deployments under both limits are on the frontier).
    let slo = driver.session();
    slo.open(&format!("{base}/?v=1&ttft=500&tpot=30"));
    slo.wait_ready();
    assert_eq!(
        slo.js("return document.getElementById('in-ttft').value;"),
        json!("500")
    );
    assert_eq!(
        slo.js("return document.getElementById('in-tpot').value;"),
        json!("30")
    );
    assert!(!slo.blank(), "the SLO link left a blank chart");
    let callout_slo = slo.text("#callout");
    let answer = slo.text("#callout-slo");
    assert!(
        answer.contains("meeting the SLO") && answer.contains("miss the TTFT limit"),
        "{answer}"
    );
    let fresh_default = driver.session();
    fresh_default.open(&format!("{base}/"));
    fresh_default.wait_ready();
    assert_ne!(
        callout_slo,
        fresh_default.text("#callout"),
        "the limits did not change the verdict"
    );
    fresh_default.close();
    // The limits on the 90th percentile: chosen in their selector, they travel in the
    // link, and the answer names the p90.
    slo.set_value("in-sloat", "p90");
    slo.wait_for(
        "the answer at the p90",
        "const a = document.getElementById('callout-slo');
         return a && a.textContent.includes('miss the p90 TTFT limit') ? true : null;",
    );
    let href = slo.js("return location.href;");
    assert!(
        href.as_str().unwrap_or_default().contains("sloat=p90"),
        "{href}"
    );
    slo.close();

    // A fixed batch in a link: the field shows it and the chart is drawn (that every
    // point runs at it is checked natively, in `explore` and the engine).
    let batch = driver.session();
    batch.open(&format!("{base}/?v=1&batch=32"));
    batch.wait_ready();
    assert_eq!(
        batch.js("return document.getElementById('in-batch').value;"),
        json!("32")
    );
    assert!(!batch.blank(), "the batch link left a blank chart");
    batch.close();
    // On the speculative axis at that batch, a drafting point shows its twin without
    // speculation, at the same batch.
    let spec = driver.session();
    spec.open(&format!("{base}/?v=1&batch=32&axis=spec"));
    spec.wait_ready();
    spec.js(
        "const b = [...document.querySelectorAll('#frontier-table button')]
                 .find(b => b.textContent.includes('draft'));
             b.click(); return true;",
    );
    spec.wait_for(
        "the twin without speculation",
        "return document.getElementById('speculation-gain') ? true : null;",
    );
    let gain = spec.text("#speculation-gain");
    assert!(
        gain.contains("Without speculation, at the same batch")
            && gain.contains("speculation gives "),
        "{gain}"
    );
    assert!(
        spec.text("#detail-title").contains("batch 32"),
        "{}",
        spec.text("#detail-title")
    );
    spec.close();

    rate::a_rate_answers_in_the_open_loop(&driver, &base);
    benchmark::prompts_per_user_move_the_mean_ttft(&driver, &base);
    benchmark::a_finite_run_drains_on_the_aggregated_axis(&driver, &base);
    chart::chips_apart_and_every_point_reachable(&driver, &base);
    export::export_matches_the_drawn_points(&driver, &base);
    phones::phones(&driver, &base);
    accessibility::accessibility_audit(&driver, &base);
    worker::the_worker_keeps_the_page_responsive(&driver, &base);
    own::a_users_own_model(&driver, &base);
    own::a_users_chip_numbers(&driver, &base);
    own::a_users_assumptions(&driver, &base);
    explain::a_figure_opens_its_chain_and_steps_their_operators(&driver, &base);
    cost::electricity_moves_ownership_only(&driver, &base);
    docs::the_documents(&driver, &base);
    validation_view::published_measurements(&driver, &base);
    error_band::each_figure_shows_its_band(&driver, &base);
    error_band::a_chips_few_points_open_in_the_table(&driver, &base);
    validation_sort::a_heading_sorts_the_table(&driver, &base);
    validation_point::a_row_opens_its_prediction(&driver, &base);
    validation_point::a_rows_scenario_opens_in_the_explorer(&driver, &base);
    validation_point::a_deployment_the_sweep_does_not_keep_is_drawn_beside_it(&driver, &base);
    bundle::a_bundle_reproduces_the_page_in_the_cli(&driver, &base);
    own::own_chips_and_effects(&driver, &base);
    precision::experts_in_their_own_format(&driver, &base);
    topology::a_split_point_draws_its_pools_and_links(&driver, &base);
    compare::two_pinned_scenarios_survive_the_link(&driver, &base);
    deploy::a_point_copies_its_launch_command(&driver, &base);
    recommend::the_first_deployment_meets_the_limits_shown(&driver, &base);
    desk::the_desk_preset_reproduces_exo(&driver, &base);

    // Every control has a label a screen reader and keyboard user can find.
    let unlabelled = page.js("return [...document.querySelectorAll('input, select')]
           .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
           .map(e => e.id || e.name);");
    assert_eq!(unlabelled, json!([]), "controls without labels");
    // Every table says what it holds, and each region of the page has a heading.
    let uncaptioned = page.js(
        "return [...document.querySelectorAll('table')].filter(t => !t.querySelector('caption')).length;",
    );
    assert_eq!(uncaptioned, json!(0), "tables without captions");
    let headings = page.js(
        "return ['.controls', '.chart', '#callout'].map(s => !!document.querySelector(s + ' h2'));",
    );
    assert_eq!(
        headings,
        json!([true, true, true]),
        "regions without headings"
    );

    // Input-to-redraw latency, as the page measures it, over a run of changes.
    let fresh = driver.session();
    fresh.open(&format!("{base}/"));
    fresh.wait_ready();
    for click in [
        "#axis-agg",
        "#axis-pd",
        "#y-usd",
        "#y-chip",
        "#axis-spec",
        "#axis-pd",
        "#chip-b300",
        "#chip-b300",
        "#axis-agg",
        "#axis-pd",
        "#y-usd",
        "#y-chip",
        "#chip-h200",
        "#chip-h200",
        "#axis-spec",
        "#axis-pd",
        "#y-usd",
        "#y-chip",
        "#axis-agg",
        "#axis-pd",
    ] {
        let n = fresh.redraws();
        fresh.click(click);
        fresh.after_input(click, n);
    }
    let (last, p95, points) = fresh.latency();
    eprintln!("latency default scenario: last {last:.1} ms, p95 {p95:.1} ms over 20 changes, {points} points drawn");
    assert!(p95.is_finite() && points > 0);

    // A large scenario: ten chip kinds, 256 chips.
    fresh.open(&format!(
        "{base}/?v=1&model=llama-3.3-70b&isl=8192&osl=512&axis=pd&budget=256\
         &chips=h100-sxm,h200,b200,b300,gb200,mi300x,mi325x,mi355x,a100-80g,l40s"
    ));
    fresh.wait_ready();
    for click in [
        "#y-usd",
        "#y-chip",
        "#axis-agg",
        "#axis-pd",
        "#y-usd",
        "#y-chip",
    ] {
        let n = fresh.redraws();
        fresh.click(click);
        fresh.after_input(click, n);
    }
    let (last, p95, points) = fresh.latency();
    eprintln!("latency large scenario (10 chips, 256 budget, pd): last {last:.1} ms, p95 {p95:.1} ms over 6 changes, {points} points drawn");
    fresh.close();
    page.close();
}
