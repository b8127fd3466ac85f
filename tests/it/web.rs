//! Component tests in a real browser (headless Chromium via wasm-bindgen-test):
//! the chip picker, the link round trip, the notices of a hostile link, the decode-pool
//! speculation toggle, the settings only mixture-of-experts models take, a pin, and the
//! page's canvas backend against plotters' own.
//!
//! Run with `cargo test --target wasm32-unknown-unknown --test it` (scripts/test.sh
//! does); `main.rs` compiles this module for wasm32 only.

use disagg_explorer::engine::Catalogue;
use disagg_explorer::scenario::Scenario;
use disagg_explorer::storage::{start, Start};
use disagg_explorer::ui::{App, ChipPicker, Page};
use disagg_explorer::web::BrowserStore;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh element to mount into, and no saved state from an earlier test.
fn container() -> web_sys::HtmlElement {
    web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .clear()
        .unwrap();
    let div = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&div).unwrap();
    div.unchecked_into()
}

fn element<T: JsCast>(css: &str) -> T {
    document()
        .query_selector(css)
        .unwrap()
        .unwrap_or_else(|| panic!("no element {css}"))
        .unchecked_into()
}

async fn settle() {
    for _ in 0..5 {
        leptos::task::tick().await;
    }
}

fn set_query(q: &str) {
    web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(q))
        .unwrap();
}

#[wasm_bindgen_test]
async fn the_chip_picker_adds_removes_and_refuses_to_empty_the_pool() {
    let parent = container();
    let page = Page::new(Start {
        scenario: Scenario {
            chips: vec!["h200".into()],
            ..Scenario::default()
        },
        ..start("", &mut BrowserStore, Catalogue::builtin())
    });
    let handle = leptos::mount::mount_to(parent.clone(), move || {
        provide_context(page);
        view! { <ChipPicker/> }
    });
    settle().await;
    assert_eq!(
        element::<web_sys::HtmlElement>("#chip-count").inner_text(),
        "1"
    );
    let badge: web_sys::HtmlElement = element("#chip-picker li.chip .badge");
    assert!(badge.title().contains("BF16 dense"), "{}", badge.title());

    element::<web_sys::HtmlElement>("#chip-gb200").click();
    settle().await;
    assert_eq!(page.scenario.get_untracked().chips, ["h200", "gb200"]);
    assert_eq!(
        element::<web_sys::HtmlElement>("#chip-count").inner_text(),
        "2"
    );

    element::<web_sys::HtmlElement>("#chip-h200").click();
    settle().await;
    element::<web_sys::HtmlElement>("#chip-gb200").click();
    settle().await;
    assert_eq!(page.scenario.get_untracked().chips, ["gb200"]);
    let error = element::<web_sys::HtmlElement>("#chips-error").inner_text();
    assert!(error.contains("at least one chip"), "{error}");
    assert!(element::<web_sys::HtmlInputElement>("#chip-gb200").checked());
    drop(handle);
    parent.remove();
}

#[wasm_bindgen_test]
async fn a_link_opens_its_scenario_and_the_address_follows_the_page() {
    let parent = container();
    let wanted = Scenario {
        model: "deepseek-v3".into(),
        isl: 2048,
        osl: 256,
        axis: disagg_explorer::engine::disagg::Axis::AttentionExpert,
        chips: vec!["h200".into(), "mi300x".into()],
        max_chips: 32,
        ..Scenario::default()
    };
    set_query(&format!("?{}", wanted.to_query()));
    let handle = leptos::mount::mount_to(parent.clone(), App);
    settle().await;
    assert_eq!(
        element::<web_sys::HtmlInputElement>("#in-isl").value(),
        "2048"
    );
    assert_eq!(
        element::<web_sys::HtmlInputElement>("#in-budget").value(),
        "32"
    );
    assert!(element::<web_sys::HtmlInputElement>("#axis-af").checked());
    assert_eq!(
        element::<web_sys::HtmlSelectElement>("#in-model").value(),
        "deepseek-v3"
    );
    assert!(document().query_selector("#notices").unwrap().is_none());

    // Typing a new prompt length moves the address; a bad one is refused by the input.
    let isl: web_sys::HtmlInputElement = element("#in-isl");
    isl.set_value("4096");
    isl.dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    let (back, notices) = Scenario::from_query(&search, Catalogue::builtin());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        back,
        Scenario {
            isl: 4096,
            ..wanted.clone()
        }
    );
    isl.set_value("-3");
    isl.dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    let error = element::<web_sys::HtmlElement>("#in-isl-error").inner_text();
    assert!(error.contains("whole number"), "{error}");
    let search_after = web_sys::window().unwrap().location().search().unwrap();
    assert_eq!(search_after, search, "a refused value changed the link");

    // The prefix-cache share follows the same rules: kept in the link, refused at 100%.
    let hit: web_sys::HtmlInputElement = element("#in-hit");
    hit.set_value("56.3");
    hit.dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    let (back, _) = Scenario::from_query(&search, Catalogue::builtin());
    assert_eq!(back.prefix_hit_pct, 56.3, "{search}");
    hit.set_value("100");
    hit.dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    let error = element::<web_sys::HtmlElement>("#in-hit-error").inner_text();
    assert!(error.contains("percentage"), "{error}");
    drop(handle);
    parent.remove();
    set_query("?");
}

#[wasm_bindgen_test]
async fn a_hostile_link_shows_notices_and_a_usable_page() {
    let parent = container();
    set_query("?v=7&model=%3Cimg%20src=x%3E&isl=NaN&chips=warp-drive&acc=2&zzz");
    let handle = leptos::mount::mount_to(parent.clone(), App);
    settle().await;
    let notices = element::<web_sys::HtmlElement>("#notices").inner_text();
    for needle in ["model", "isl", "warp-drive", "acc", "zzz", "version"] {
        assert!(
            notices.contains(needle),
            "no notice about {needle}: {notices}"
        );
    }
    // The markup in the link is shown as text, never parsed.
    assert!(document().query_selector("#notices img").unwrap().is_none());
    // The page still works: the defaults are in the controls.
    assert_eq!(
        element::<web_sys::HtmlInputElement>("#in-isl").value(),
        "8192"
    );
    element::<web_sys::HtmlElement>("#dismiss-notices").click();
    settle().await;
    assert!(document().query_selector("#notices").unwrap().is_none());
    drop(handle);
    parent.remove();
    set_query("?");
}

#[wasm_bindgen_test]
async fn the_aligned_prefill_toggle_follows_the_link_and_back() {
    let parent = container();
    let wanted = Scenario {
        model: "deepseek-v3".into(),
        isl: 2048,
        osl: 1024,
        axis: disagg_explorer::engine::disagg::Axis::Aggregated,
        chips: vec!["h200".into()],
        max_chips: 16,
        aligned_prefill: true,
        ..Scenario::default()
    };
    set_query(&format!("?{}", wanted.to_query()));
    let handle = leptos::mount::mount_to(parent.clone(), App);
    settle().await;
    // The link's setting reaches the box.
    let toggle: web_sys::HtmlInputElement = element("#in-aligned-prefill");
    assert!(toggle.checked());

    // Unticked, the link drops the key and reads back as the default.
    toggle.click();
    settle().await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(!search.contains("adp="), "{search}");
    let (back, notices) = Scenario::from_query(&search, Catalogue::builtin());
    assert!(notices.is_empty(), "{notices:?}");
    assert!(!back.aligned_prefill);

    // Ticked again, the key returns.
    element::<web_sys::HtmlInputElement>("#in-aligned-prefill").click();
    settle().await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(search.contains("adp=1"), "{search}");
    assert!(
        Scenario::from_query(&search, Catalogue::builtin())
            .0
            .aligned_prefill
    );
    drop(handle);
    parent.remove();
    set_query("?");
}

#[wasm_bindgen_test]
async fn the_expert_exchange_list_follows_the_link_and_back() {
    let parent = container();
    let wanted = Scenario {
        model: "qwen3-235b-a22b".into(),
        chips: vec!["h200".into()],
        max_chips: 16,
        expert_exchange: disagg_explorer::engine::assumptions::ExpertExchange::GatherScatter,
        ..Scenario::default()
    };
    set_query(&format!("?{}", wanted.to_query()));
    let handle = leptos::mount::mount_to(parent.clone(), App);
    settle().await;
    // The link's setting reaches the list.
    let list: web_sys::HtmlSelectElement = element("#in-xchg");
    assert_eq!(list.value(), "gather_scatter");

    // Back to the all-to-all, the link drops the key and reads back as the default.
    let choose = |value: &str| {
        let list: web_sys::HtmlSelectElement = element("#in-xchg");
        list.set_value(value);
        list.dispatch_event(&web_sys::Event::new("change").unwrap())
            .unwrap();
    };
    choose("all_to_all");
    settle().await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(!search.contains("xchg="), "{search}");
    let (back, notices) = Scenario::from_query(&search, Catalogue::builtin());
    assert!(notices.is_empty(), "{notices:?}");
    assert!(back.expert_exchange.is_all_to_all());

    // Chosen again, the key returns.
    choose("gather_scatter");
    settle().await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(search.contains("xchg=gather_scatter"), "{search}");
    drop(handle);
    parent.remove();
    set_query("?");
}

#[wasm_bindgen_test]
async fn the_decode_pool_speculation_toggle_shows_its_settings_and_follows_the_link() {
    let parent = container();
    let wanted = Scenario {
        model: "deepseek-v3".into(),
        isl: 1024,
        osl: 1024,
        chips: vec!["h200".into()],
        max_chips: 16,
        draft_model: None,
        ..Scenario::default()
    };
    set_query(&format!("?{}", wanted.to_query()));
    let handle = leptos::mount::mount_to(parent.clone(), App);
    settle().await;
    assert!(element::<web_sys::HtmlInputElement>("#axis-pd").checked());
    let toggle: web_sys::HtmlInputElement = element("#in-spec-decode");
    assert!(!toggle.checked());
    assert!(document()
        .query_selector("#spec-settings")
        .unwrap()
        .is_none());

    toggle.click();
    settle().await;
    assert!(document()
        .query_selector("#spec-settings")
        .unwrap()
        .is_some());
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(search.contains("sd=1"), "{search}");
    let (back, notices) = Scenario::from_query(&search, Catalogue::builtin());
    assert!(notices.is_empty(), "{notices:?}");
    assert!(back.speculative_decode);

    // Off again: the settings go and the link drops the key.
    element::<web_sys::HtmlInputElement>("#in-spec-decode").click();
    settle().await;
    assert!(document()
        .query_selector("#spec-settings")
        .unwrap()
        .is_none());
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(!search.contains("sd=1"), "{search}");
    drop(handle);
    parent.remove();
    set_query("?");
}

/// Picks a model in the model list as a user would.
async fn choose_model(id: &str) {
    let model: web_sys::HtmlSelectElement = element("#in-model");
    model.set_value(id);
    model
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
}

#[wasm_bindgen_test]
async fn settings_only_moe_models_take_are_off_for_a_dense_model() {
    let parent = container();
    let dense = Scenario {
        model: "llama-3.3-70b".into(),
        chips: vec!["h200".into()],
        max_chips: 16,
        ..Scenario::default()
    };
    set_query(&format!("?{}", dense.to_query()));
    let handle = leptos::mount::mount_to(parent.clone(), App);
    settle().await;
    let af = || element::<web_sys::HtmlInputElement>("#axis-af");
    // Both controls only routed experts read, as one: both shown or both hidden.
    let adp = || {
        let shown = ["#in-aligned-prefill", "#in-xchg"]
            .map(|id| document().query_selector(id).unwrap().is_some());
        assert_eq!(shown[0], shown[1], "one expert control without the other");
        shown[0]
    };
    assert!(
        af().disabled(),
        "attention/expert offered for a dense model"
    );
    assert!(!element::<web_sys::HtmlInputElement>("#axis-pd").disabled());
    assert!(!adp(), "expert-group prefill offered for a dense model");

    // Choosing a mixture-of-experts model offers both.
    choose_model("deepseek-v3").await;
    assert!(!af().disabled());
    assert!(adp());

    // And back to a dense one takes them away again.
    choose_model("llama-3.3-70b").await;
    assert!(af().disabled());
    assert!(!adp());
    drop(handle);
    parent.remove();
    set_query("?");
}

#[wasm_bindgen_test]
async fn the_draft_list_offers_an_eagle_head_and_the_link_follows_it() {
    let parent = container();
    let moe = Scenario {
        model: "deepseek-v3".into(),
        axis: disagg_explorer::engine::disagg::Axis::Speculative,
        chips: vec!["h200".into()],
        max_chips: 16,
        draft_model: None,
        ..Scenario::default()
    };
    set_query(&format!("?{}", moe.to_query()));
    let handle = leptos::mount::mount_to(parent.clone(), App);
    settle().await;
    let draft: web_sys::HtmlSelectElement = element("#in-draft");
    assert_eq!(draft.value(), "mtp");
    // Choosing the EAGLE head as a user would: the link says so.
    draft.set_value("eagle");
    draft
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(search.contains("draft=eagle"), "{search}");
    let (back, _) = Scenario::from_query(&search, Catalogue::builtin());
    assert_eq!(back.eagle_layers, Some(1));
    // Redundant experts, an MoE model's setting, enter by their field.
    let re: web_sys::HtmlInputElement = element("#in-re");
    re.set_value("32");
    re.dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(search.contains("re=32"), "{search}");
    drop(handle);
    parent.remove();
    set_query("?");
}

/// "Pin scenario" keeps the current scenario (its sweep serves the pin), the table
/// shows it beside the current one with no change, a rename and a removal follow,
/// and the link carries the pins.
#[wasm_bindgen_test]
async fn a_pin_is_kept_named_compared_and_removed() {
    use disagg_explorer::engine::disagg::Axis;
    use disagg_explorer::explore::explore;
    use disagg_explorer::ui::{Explored, Pins};
    use std::sync::Arc;
    let parent = container();
    let small = Scenario {
        axis: Axis::Aggregated,
        chips: vec!["h200".into()],
        max_chips: 8,
        ..Scenario::default()
    };
    let page = Page::new(Start {
        scenario: small.clone(),
        ..start("", &mut BrowserStore, Catalogue::builtin())
    });
    page.explored.set(Some(Arc::new(Explored {
        result: explore(&small, Catalogue::builtin()),
        scenario: small.clone(),
    })));
    let handle = leptos::mount::mount_to(parent.clone(), move || {
        provide_context(page);
        view! { <Pins/> }
    });
    settle().await;
    assert!(document()
        .query_selector("#compare-table")
        .unwrap()
        .is_none());
    element::<web_sys::HtmlElement>("#pin-scenario").click();
    settle().await;
    assert_eq!(page.pins.get_untracked().len(), 1);
    assert!(page.link_query().contains("&pins="));
    let body: web_sys::HtmlElement = element("#compare-table tbody");
    assert_eq!(body.child_element_count(), 2);
    let pin_row = body.last_element_child().unwrap();
    assert!(
        pin_row.text_content().unwrap_or_default().contains("±0%"),
        "{:?}",
        pin_row.text_content()
    );
    let name: web_sys::HtmlInputElement = element("#pin-name-1");
    name.set_value("mine");
    name.dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    assert_eq!(page.pins.get_untracked()[0].name, "mine");
    element::<web_sys::HtmlElement>("#pin-remove-1").click();
    settle().await;
    assert!(page.pins.get_untracked().is_empty());
    assert!(!page.link_query().contains("pins="));
    assert!(document()
        .query_selector("#compare-table")
        .unwrap()
        .is_none());
    drop(handle);
    parent.remove();
}

/// The page's canvas backend, which sets a fill colour only when it changes, draws the
/// very pixels plotters' own canvas backend draws: coloured by price and by chip (a
/// mixed point's two halves), with a point selected, on a HiDPI scale.
#[wasm_bindgen_test]
fn the_page_canvas_backend_draws_the_pixels_of_plotters_own() {
    use disagg_explorer::chart::canvas::Backend;
    use disagg_explorer::chart::draw::{draw, Look};
    use disagg_explorer::chart::ChartModel;
    use disagg_explorer::scenario::ColourBy;
    use plotters_canvas::CanvasBackend;
    let canvas = || {
        let c: web_sys::HtmlCanvasElement = document()
            .create_element("canvas")
            .unwrap()
            .unchecked_into();
        c.set_width(1200);
        c.set_height(900);
        c
    };
    let r = disagg_explorer::explore::explore(&Scenario::default(), Catalogue::builtin()).unwrap();
    for colour_by in [ColourBy::Price, ColourBy::Chip] {
        let shown = Scenario {
            colour_by,
            ..Scenario::default()
        };
        let m = ChartModel::new(&r, &shown, true, Catalogue::builtin());
        assert!(m.points.len() > 100, "{} points", m.points.len());
        let look = Look {
            scale: 1.5,
            selected: Some(m.points.len() / 2),
        };
        let (theirs, ours) = (canvas(), canvas());
        let a = draw(
            CanvasBackend::with_canvas_object(theirs.clone()).unwrap(),
            &m,
            &look,
        );
        let b = draw(Backend::new(ours.clone()).unwrap(), &m, &look);
        assert_eq!(a, b, "{colour_by:?}: the points' places");
        let (a, b) = (theirs.to_data_url().unwrap(), ours.to_data_url().unwrap());
        assert!(
            a.len() > 10_000,
            "{colour_by:?}: a chart drawn ({} bytes)",
            a.len()
        );
        assert!(a == b, "{colour_by:?}: the pixels differ");
    }
}
