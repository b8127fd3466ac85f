//! The largest sweep in the worker while the page keeps answering.

use super::driver::Driver;
use serde_json::{json, Value};

/// The largest sweep the page allows (twelve chip kinds, 4,096 chips, attention/expert
/// on DeepSeek-R1) runs in the worker: the page keeps answering input meanwhile. The
/// longest main-thread task while the worker sweeps is measured and reported, and so
/// is the longest while the result is drawn.
pub(super) fn the_worker_keeps_the_page_responsive(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/"));
    page.wait_ready();
    page.js(
        "window.__long = [];
         new PerformanceObserver(l => l.getEntries().forEach(e => window.__long.push([e.startTime, e.duration])))
           .observe({type: 'longtask'});
         return true;",
    );
    page.set_value("in-model", "deepseek-r1");
    page.wait_for(
        "the expert axis to be offered",
        "return document.getElementById('axis-af').disabled ? null : true;",
    );
    page.click("#axis-af");
    page.set_value("in-budget", "4096");
    for chip in [
        "b300", "gb200", "gb300", "mi325x", "a100-80g", "gaudi3", "tpu-v6e",
    ] {
        page.click(&format!("#chip-{chip}"));
    }
    let asked = page.js("return performance.now();").as_f64().unwrap_or(0.0);
    assert_eq!(page.text("#chip-count"), "12");
    // While the worker sweeps, a timer set now fires at once.
    let sweeping = page.js("return document.getElementById('status').dataset.sweeping;");
    let timer = page.js_async(
        "const t0 = performance.now(); setTimeout(() => done(performance.now() - t0), 0);",
    );
    page.wait_for(
        "the largest sweep",
        "const s = document.getElementById('status');
         return s.dataset.sweeping === 'false' && Number(s.dataset.points) > 0 ? true : null;",
    );
    // The result shown: the redraw that answers the last input.
    page.wait_for(
        "the redraw of the largest sweep",
        "return document.getElementById('chart-summary').innerText.includes('Scatter') ? true : null;",
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    // Every main-thread task from the last input to the drawn result: the sweep's
    // time in the worker, then reading and drawing the result.
    let tasks = page.js(&format!(
        "return window.__long.filter(([t, d]) => t + d >= {asked}).map(([t, d]) => Math.round(d));"
    ));
    let longest = tasks
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).fold(0.0, f64::max))
        .unwrap_or(f64::NAN);
    let (_, _, points) = page.latency();
    let status = page.text("#timing");
    let longest_text = if longest > 0.0 {
        format!("longest main-thread task {longest:.0} ms (tasks of 50 ms or more: {tasks})")
    } else {
        "no main-thread task of 50 ms or more".to_string()
    };
    eprintln!(
        "worker: largest sweep (12 chip kinds, 4,096 chips, af, deepseek-r1): {longest_text} \
         from the last input to the drawn result ({points} points drawn); a timer set during \
         the sweep fired after {:.1} ms; {status}",
        timer.as_f64().unwrap_or(f64::NAN)
    );
    assert_eq!(
        sweeping,
        json!("true"),
        "the sweep was over before it was measured"
    );
    // While the worker sweeps, the page is idle (the timer above); what remains on the
    // main thread is reading the parts and drawing the result, each a task of its own.
    // The aim is none over 50 ms (the README reports the measured longest); this
    // guards against a return of the freeze, with room for a slower machine.
    assert!(longest <= 100.0, "main-thread tasks over 50 ms: {tasks}");
    assert!(timer.as_f64().is_some_and(|t| t < 50.0), "timer {timer}");
    page.close();
}
