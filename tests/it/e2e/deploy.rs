//! "Copy launch command": a selected point's launch carries the parallel sizes its
//! pools table shows, follows the framework chosen, and copies (to the clipboard, or
//! selected for the user where the browser refuses).

use super::driver::Driver;
use serde_json::json;

pub(super) fn a_point_copies_its_launch_command(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/?v=1&axis=pd&chips=h200"));
    page.wait_ready();
    page.js(
        "const b = [...document.querySelectorAll('#frontier-table button')]
                 .find(b => b.textContent.includes('prefill'));
             b.click(); return true;",
    );
    page.wait_for(
        "the detail panel",
        "return document.querySelector('#detail table.pools tbody tr') ? true : null;",
    );
    // Each pool's layout as the pools table shows it: "TP4 PP1 DP1 EP1".
    let layouts = page.js(
        "return [...document.querySelectorAll('#detail table.pools tbody tr')]
             .map(r => r.cells[2].textContent.trim());",
    );
    let layouts: Vec<Vec<u32>> = layouts
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l.as_str()
                .unwrap()
                .split(' ')
                .map(|part| {
                    part.trim_start_matches(char::is_alphabetic)
                        .parse()
                        .unwrap()
                })
                .collect()
        })
        .collect();
    assert_eq!(layouts.len(), 2, "{layouts:?}");
    // Closed, nothing is written; opened, the scenario's framework (vLLM under auto).
    assert_eq!(
        page.js("return document.getElementById('launch-command') === null;"),
        json!(true)
    );
    page.click("#launch-open");
    page.wait_for(
        "the launch command",
        "const p = document.getElementById('launch-command'); return p ? p.textContent : null;",
    );
    let vllm = page.text("#launch-command");
    assert!(vllm.contains("vllm serve"), "{vllm}");
    assert!(vllm.contains("NixlConnector"), "{vllm}");
    for l in &layouts {
        for (flag, v) in [
            ("--tensor-parallel-size", l[0]),
            ("--pipeline-parallel-size", l[1]),
            ("--data-parallel-size", l[2]),
        ] {
            assert!(
                vllm.contains(&format!("{flag} {v}")),
                "{flag} {v} not in\n{vllm}"
            );
        }
    }
    // Another framework rewrites it.
    page.set_value("launch-framework", "sglang");
    let sglang = page.wait_for(
        "the SGLang command",
        "const p = document.getElementById('launch-command');
         return p && p.textContent.includes('sglang.launch_server') ? p.textContent : null;",
    );
    let sglang = sglang.as_str().unwrap_or_default();
    assert!(sglang.contains("--disaggregation-mode prefill"), "{sglang}");
    for l in &layouts {
        assert!(sglang.contains(&format!("--tp-size {}", l[0])), "{sglang}");
    }
    // Copy: the clipboard when the browser grants it, else the command selected.
    page.click("#launch-copy");
    let status = page.wait_for(
        "the copy status",
        "const s = document.getElementById('launch-status').textContent; return s ? s : null;",
    );
    let status = status.as_str().unwrap_or_default();
    let pre = page.js("return document.getElementById('launch-command').textContent;");
    if status.starts_with("Copied") {
        let read = page.js_async("navigator.clipboard.readText().then(done, () => done(null));");
        if !read.is_null() {
            assert_eq!(read, pre);
        }
    } else {
        assert!(status.contains("selected"), "{status}");
        let selected = page.js("return window.getSelection().toString();");
        assert_eq!(
            selected.as_str().map(str::trim),
            pre.as_str().map(str::trim),
            "the selection is not the command"
        );
    }
    page.close();
}
