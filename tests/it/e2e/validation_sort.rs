//! The validation table sorts by a clicked heading: ascending, descending, then the
//! table's own order, the first row the one the page's own sort logic puts first and
//! the order carried in the link.

use super::driver::{Driver, Session};
use disagg_explorer::engine::validation::{run, BenchmarkTable};
use disagg_explorer::engine::{Assumptions, Catalogue};
use disagg_explorer::validation_view::sort::{sorted, Column, Sort};
use disagg_explorer::validation_view::{kept, Filters};
use serde_json::json;

fn first_id(page: &Session) -> String {
    page.js_text("const r = document.querySelector('#validation-table tbody tr'); return r ? r.dataset.id : '';")
}

pub(super) fn a_heading_sorts_the_table(driver: &Driver, base: &str) {
    let cat = Catalogue::builtin();
    let table = BenchmarkTable::builtin().unwrap();
    let report = run(cat, &table, &Assumptions::default());
    let all = kept(&report, &Filters::default(), cat);
    let first = |sort: Option<Sort>| sorted(all.clone(), sort, cat)[0].0.point.id.clone();
    let page = driver.session();
    page.open(&format!("{base}/?view=validation"));
    super::validation_view::wait_rows(&page, table.point.len());
    let own = first_id(&page);
    assert_eq!(own, table.point[0].id);
    let aria =
        "return document.getElementById('vv-sort-error').parentElement.getAttribute('aria-sort');";
    assert_eq!(page.js(aria), json!("none"));
    // First click: ascending by signed error; second: descending; third: the table's.
    for (sort, state, key) in [
        (
            Some(Sort {
                column: Column::Error,
                descending: false,
            }),
            "ascending",
            Some("vv.sort=error"),
        ),
        (
            Some(Sort {
                column: Column::Error,
                descending: true,
            }),
            "descending",
            Some("vv.sort=-error"),
        ),
        (None, "none", None),
    ] {
        page.click("#vv-sort-error");
        let expected = first(sort);
        page.wait_for(
            &format!("{expected} first ({state})"),
            &format!(
                "const r = document.querySelector('#validation-table tbody tr');
                 return r && r.dataset.id === {} ? true : null;",
                json!(expected)
            ),
        );
        assert_eq!(page.js(aria), json!(state));
        let l = page.href();
        match key {
            Some(k) => assert!(l.contains(k), "{l}"),
            None => assert!(!l.contains("vv.sort"), "{l}"),
        }
    }
    assert_eq!(first_id(&page), own);
    // A link with an order opens the table in it.
    let fresh = driver.session();
    fresh.open(&format!("{base}/?view=validation&vv.sort=-measured"));
    let expected = first(Some(Sort {
        column: Column::Measured,
        descending: true,
    }));
    fresh.wait_for(
        "the table in the link's order",
        &format!(
            "const r = document.querySelector('#validation-table tbody tr');
             return r && r.dataset.id === {} ? true : null;",
            json!(expected)
        ),
    );
    assert_eq!(
        fresh.js("return document.getElementById('vv-sort-measured').parentElement.getAttribute('aria-sort');"),
        json!("descending")
    );
    eprintln!("validation sort: error both ways and back, a sorted link opened");
    fresh.close();
    page.close();
}
