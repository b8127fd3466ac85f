//! Precision per component, end to end: for a MoE model the expert and LM-head dtype
//! controls sit beside the weight dtype, their choice travels in the link, the model's
//! summary names the formats and weighs the weights in them, and the chart redraws.

use super::driver::{Driver, Session};

/// The model summary's text, folded or not.
fn about(page: &Session) -> String {
    page.js_text(
        "const e = document.getElementById('model-summary'); return e ? e.textContent : '';",
    )
}

pub fn experts_in_their_own_format(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!(
        "{base}/?v=1&model=gpt-oss-120b&wd=bf16&axis=agg&chips=b200&budget=8"
    ));
    page.wait_ready();
    page.settle();
    let before = page.canvas();
    let text = about(&page);
    assert!(text.contains("bf16: "), "{text}");
    page.set_value("in-ed", "mxfp4");
    page.settle();
    let href = page.href();
    assert!(href.contains("ed=mxfp4"), "{href}");
    let text = about(&page);
    assert!(text.contains("bf16, experts mxfp4: "), "{text}");
    assert_ne!(page.canvas(), before, "the chart did not change");
    // The attention output projections in their own format, as NVIDIA's v2 DeepSeek
    // FP4 checkpoints hold them: in the link and the summary, the weights lighter.
    let mixed = page.canvas();
    page.set_value("in-ao", "nvfp4");
    page.settle();
    let href = page.href();
    assert!(href.contains("ao=nvfp4"), "{href}");
    let text = about(&page);
    assert!(
        text.contains("bf16, experts mxfp4, attention output nvfp4: "),
        "{text}"
    );
    assert_ne!(page.canvas(), mixed, "the chart did not change");
    // A dense model has no experts: the control is not offered.
    page.set_value("in-model", "llama-3.3-70b");
    page.settle();
    assert_eq!(
        page.js("return document.getElementById('in-ed') === null;"),
        serde_json::json!(true)
    );
    assert!(page
        .js("return document.getElementById('in-hd') !== null;")
        .as_bool()
        .unwrap_or(false));
    page.close();
}
