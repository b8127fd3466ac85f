//! The documents inside the site: the footer's link opens the model's equations under
//! their own Content-Security-Policy, with the numbered sections' anchors the
//! explanations link to, nothing loaded from outside the origin and no script; the
//! audit's references to the model's sections land on them; the header leads back.

use super::driver::{Driver, Session};
use serde_json::json;

/// Waits for `page` to be at `path` (under the origin) and loaded.
fn arrive(page: &Session, path: &str) {
    page.wait_for(
        path,
        &format!(
            "return location.pathname === {} && document.readyState === 'complete' ? true : null;",
            json!(path)
        ),
    );
}

/// The checks every document page passes: its policy, its own stylesheet applied,
/// no script, nothing from elsewhere, and the axe-core audit.
fn a_sound_page(page: &Session, name: &str) {
    let policy = page.js(
        "const m = document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]'); return m ? m.content : '';",
    );
    let policy = policy.as_str().unwrap_or_default();
    assert!(
        policy.contains("default-src 'none'") && policy.contains("style-src 'self'"),
        "{name}: policy {policy}"
    );
    // The stylesheet loaded under that policy and applies.
    assert_eq!(
        page.js(
            "return [document.styleSheets.length, document.styleSheets[0].cssRules.length > 10,
                     getComputedStyle(document.querySelector('main')).maxWidth !== 'none',
                     document.scripts.length];"
        ),
        json!([1, true, true, 0]),
        "{name}"
    );
    let foreign = page.js(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(u => !u.startsWith(location.origin));",
    );
    assert_eq!(foreign, json!([]), "{name}: requests outside the origin");
    let violations = page.accessibility_violations();
    assert!(violations.is_empty(), "{name}: {violations:#?}");
}

pub fn the_documents(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/"));
    let link = "footer a[href=\"docs/model.html\"]";
    page.wait_for(
        "the footer's link to the model",
        &format!(
            "return document.querySelector({}) ? true : null;",
            json!(link)
        ),
    );
    assert_eq!(
        page.js("return document.querySelector('footer a[href=\"docs/audit.html\"]') !== null;"),
        json!(true)
    );
    page.click(link);
    arrive(&page, "/docs/model.html");
    a_sound_page(&page, "model.html");
    assert!(
        page.js("return document.title;")
            .as_str()
            .is_some_and(|t| t.starts_with("The performance model")),
        "{}",
        page.js("return document.title;")
    );
    // The numbered sections carry the ids the explanations link to, beside GitHub's.
    assert_eq!(
        page.js(
            "const h = document.getElementById('section-6-1');
             return h ? [h.tagName, h.innerText.startsWith('6.1 The round'),
                         document.getElementById('61-the-round-disaggroundrs').parentElement === h,
                         document.querySelectorAll('.toc a[href=\"#section-6-1\"]').length] : null;"
        ),
        json!(["H3", true, true, 1])
    );
    // The equations are code blocks.
    assert_eq!(
        page.js("return [...document.querySelectorAll('pre code')].some(c => c.innerText.includes('TPOT = (R - TTFT) / (OSL - 1)'));"),
        json!(true)
    );

    // A link to a section lands on it.
    let direct = driver.session();
    direct.open(&format!("{base}/docs/model.html#section-6-1"));
    arrive(&direct, "/docs/model.html");
    assert_eq!(
        direct.js("const t = document.querySelector(':target'); return t ? t.id : null;"),
        json!("section-6-1")
    );
    direct.close();

    // To the audit from the header; its references to the model's sections land there.
    page.click(".masthead a[href=\"audit.html\"]");
    arrive(&page, "/docs/audit.html");
    a_sound_page(&page, "audit.html");
    assert!(page
        .js("return document.querySelectorAll('table').length;")
        .as_u64()
        .is_some_and(|n| n > 3));
    page.click("a[href=\"model.html#section-3\"]");
    arrive(&page, "/docs/model.html");
    assert_eq!(
        page.js("const t = document.querySelector(':target'); return t ? t.id : null;"),
        json!("section-3")
    );
    // And back to the explorer.
    page.click(".masthead a[href=\"../\"]");
    arrive(&page, "/");
    page.wait_for(
        "the explorer again",
        &format!(
            "return document.querySelector({}) ? true : null;",
            json!(link)
        ),
    );
    eprintln!("documents: model.html and audit.html pass their checks and the axe-core audit");
    page.close();
}
