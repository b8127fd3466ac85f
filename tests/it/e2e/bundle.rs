//! The reproducible bundle end to end: "Download bundle" on a page with a user's chip
//! number, an assumption and a selected point; the release CLI run on that file gives
//! the page's own exported figures to the last digit (`sweep --bundle`) and the
//! selected point's (`predict --bundle`); "Import bundle" in a fresh page brings the
//! same scenario and point back, and a bad file is refused by its field.

use super::driver::{Driver, Session};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The release CLI, built (or found up to date) by cargo.
fn cli() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--release", "-p", "disagg-cli"])
        .status()
        .expect("cargo runs");
    assert!(built.success(), "the release CLI did not build");
    root.join("target/release/disagg")
}

/// Runs the CLI on `args`; its stdout as JSON.
fn run(cli: &Path, args: &[&str]) -> Value {
    let o = Command::new(cli).args(args).output().expect("the CLI runs");
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("JSON from the CLI")
}

/// Keeps every blob the page offers, in order, in `window.__exports`.
fn catch_downloads(page: &Session) {
    page.js("window.__exports = [];
         const make = URL.createObjectURL;
         URL.createObjectURL = b => { window.__exports.push(b); return make.call(URL, b); };
         HTMLAnchorElement.prototype.click = function () {};
         return true;");
}

/// Clicks `button` and returns the text of the file it offered.
fn download(page: &Session, button: &str) -> String {
    let before = page.js("return window.__exports.length;");
    page.click(button);
    page.wait_for(
        "the download",
        &format!("return window.__exports.length > {before} ? true : null;"),
    );
    page.js_async("window.__exports[window.__exports.length - 1].text().then(done);")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Hands `text` to the "Import bundle" input as a chosen file.
fn choose(page: &Session, text: &str) {
    page.js(&format!(
        "const dt = new DataTransfer();
         dt.items.add(new File([{}], 'disagg-bundle.json', {{type: 'application/json'}}));
         const input = document.getElementById('import-bundle');
         input.files = dt.files;
         input.dispatchEvent(new Event('change', {{bubbles: true}}));
         return true;",
        json!(text)
    ));
}

pub fn a_bundle_reproduces_the_page_in_the_cli(driver: &Driver, base: &str) {
    let page = driver.session();
    // Aggregated on two chips keeps the sweep small; the user's price, an assumption
    // and a selected point make it the page's own.
    let query =
        "v=1&axis=agg&chips=h200,mi300x&budget=16&isl=2048&osl=256&chip.h200.price=1.9&a.mfu=0.55";
    page.open(&format!("{base}/?{query}&point=2"));
    page.wait_ready();
    page.wait_for(
        "the selected point",
        "return document.getElementById('detail') ? true : null;",
    );
    catch_downloads(&page);
    let exported: Value = serde_json::from_str(&download(&page, "#export-json")).unwrap();
    let bundle = download(&page, "#export-bundle");
    assert!(
        page.text("#export-status")
            .contains("with the selected point"),
        "{}",
        page.text("#export-status")
    );
    let dir = std::env::temp_dir().join(format!("disagg-e2e-bundle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("disagg-bundle.json");
    std::fs::write(&file, &bundle).unwrap();
    let file = file.to_str().unwrap();

    // The CLI's frontier is the page's, point for point and digit for digit.
    let cli = cli();
    let swept = run(&cli, &["sweep", "--bundle", file, "--json"]);
    let page_point = |i: &Value| -> Value {
        let mut p = exported["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["point"] == *i)
            .unwrap_or_else(|| panic!("point {i} was not drawn"))
            .clone();
        p.as_object_mut().unwrap().remove("point");
        p
    };
    let page_frontier: Vec<Value> = exported["frontiers"]["output_tok_s_per_chip"]["overall"]
        .as_array()
        .unwrap()
        .iter()
        .map(page_point)
        .collect();
    assert!(!page_frontier.is_empty());
    assert_eq!(
        swept["frontier_throughput"],
        Value::Array(page_frontier),
        "the CLI's frontier differs from the page's"
    );
    assert_eq!(swept["target_tok_s_user"], exported["target_tok_s_user"]);
    // The selected point, predicted alone, has the figures the page drew for it.
    let predicted = run(&cli, &["predict", "--bundle", file, "--json"]);
    let selected = page_point(&json!(2));
    for figure in [
        "tok_s_user",
        "output_tok_s_per_chip",
        "ttft_s",
        "tpot_s",
        "usd_per_mtok_output",
    ] {
        assert_eq!(predicted[figure], selected[figure], "{figure}");
    }
    page.close();

    // A fresh page imports the file: the same scenario (the link says so) and point.
    let fresh = driver.session();
    fresh.open(&format!("{base}/"));
    fresh.wait_ready();
    let n = fresh.redraws();
    choose(&fresh, &bundle);
    fresh.after_input("the imported scenario", n);
    fresh.wait_for(
        "the imported point",
        "return document.getElementById('detail') ? true : null;",
    );
    assert_eq!(fresh.text("#export-status"), "Bundle imported.");
    let link = fresh.js("return location.search;");
    let link = link.as_str().unwrap_or_default();
    for part in [
        "axis=agg",
        "chips=h200,mi300x",
        "chip.h200.price=1.9",
        "a.mfu=0.55",
        "point=2",
    ] {
        assert!(link.contains(part), "{part} not in {link}");
    }
    // A bad file changes nothing and names its field.
    choose(&fresh, &bundle.replacen("\"osl\": 256", "\"osl\": 0", 1));
    let why = fresh.wait_for(
        "the refusal",
        "const s = document.getElementById('export-status').innerText;
         return s.startsWith('Not imported') ? s : null;",
    );
    assert!(
        why.as_str().unwrap_or_default().contains("workload.osl"),
        "{why}"
    );
    fresh.close();
    std::fs::remove_dir_all(&dir).ok();
}
