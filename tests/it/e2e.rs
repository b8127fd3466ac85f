//! End-to-end: the release page in headless Chromium, driven through WebDriver.
//!
//! Builds nothing itself: `scripts/test.sh` runs `trunk build --release` first and then
//! this test with `--ignored` (it needs chromedriver, Chromium and `dist/`). It serves
//! `dist/` on loopback with a small file server, starts chromedriver, and speaks the
//! WebDriver protocol over plain HTTP, so it needs no extra crates.
//!
//! It clicks the axis and chips and checks that the canvas pixels and the callout
//! change, opens the copied link in a fresh browser and finds the same view, opens a
//! hostile link and finds notices and a working chart, and reports the page's own
//! input-to-redraw measurements.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

fn dist() -> PathBuf {
    let d = std::env::var_os("DISAGG_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("dist"));
    assert!(
        d.join("index.html").exists(),
        "no {}/index.html: run `trunk build --release` first (scripts/test.sh does)",
        d.display()
    );
    d
}

/// Serves a folder on 127.0.0.1 from a background thread; returns the base URL.
fn serve(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || {
                let _ = answer(stream, &root);
            });
        }
    });
    format!("http://{addr}")
}

fn answer(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let path = path
        .split('?')
        .next()
        .unwrap_or("/")
        .trim_start_matches('/');
    let file = if path.is_empty() || path.contains("..") {
        root.join("index.html")
    } else {
        root.join(path)
    };
    let (status, body) = match std::fs::read(&file) {
        Ok(b) => ("200 OK", b),
        Err(_) => ("404 Not Found", b"not found".to_vec()),
    };
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("wasm") => "application/wasm",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("html") => "text/html; charset=utf-8",
        _ => "application/octet-stream",
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One HTTP/1.1 exchange with chromedriver.
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> std::io::Result<Value> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    // chromedriver may keep the connection open: read the head, then the body by its
    // length (or its chunks).
    let mut reader = BufReader::new(s);
    let mut length = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
    let mut payload = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            payload.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = length {
        payload.resize(n, 0);
        reader.read_exact(&mut payload)?;
    } else {
        reader.read_to_end(&mut payload)?;
    }
    let payload = String::from_utf8_lossy(&payload);
    Ok(serde_json::from_str(&payload).unwrap_or(Value::Null))
}

struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    fn start() -> Driver {
        let port = free_port();
        let bin = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let child = Command::new(&bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {bin}: {e} (scripts/setup.sh installs it)"));
        let start = Instant::now();
        while http(port, "GET", "/status", None).is_err() {
            assert!(start.elapsed() < WAIT, "chromedriver did not answer");
            std::thread::sleep(Duration::from_millis(100));
        }
        Driver { child, port }
    }

    /// A browser with a fresh profile: no saved state.
    fn session(&self) -> Session {
        static SESSIONS: AtomicU32 = AtomicU32::new(0);
        let profile = std::env::temp_dir().join(format!(
            "disagg-e2e-{}-{}",
            std::process::id(),
            SESSIONS.fetch_add(1, Ordering::Relaxed)
        ));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
                "args": ["--headless", "--no-sandbox", "--disable-gpu",
                         "--disable-background-networking", "--disable-component-update",
                         "--no-first-run", "--disable-sync", "--disable-quic",
                         "--window-size=1400,1600", "--force-device-scale-factor=1",
                         format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let v = http(self.port, "POST", "/session", Some(&caps)).expect("new session");
        let id = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {v}"))
            .to_string();
        Session {
            port: self.port,
            id,
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

struct Session {
    port: u16,
    id: String,
}

impl Session {
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let v = http(
            self.port,
            method,
            &format!("/session/{}{path}", self.id),
            body.as_ref(),
        )
        .expect("webdriver call");
        if v["value"].get("error").is_some() {
            panic!("webdriver {method} {path}: {}", v["value"]);
        }
        v["value"].clone()
    }

    fn open(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    fn text(&self, css: &str) -> String {
        self.js(&format!(
            "const e = document.querySelector({css:?}); return e ? e.innerText : '';"
        ))
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// A real WebDriver click on the element `css` finds.
    fn click(&self, css: &str) {
        let e = self.call(
            "POST",
            "/element",
            Some(json!({ "using": "css selector", "value": css })),
        );
        let id = e
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_string();
        self.call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    fn wait_for(&self, what: &str, script: &str) -> Value {
        let start = Instant::now();
        loop {
            let v = self.js(script);
            if !v.is_null() && v != json!(false) && v != json!("") {
                return v;
            }
            assert!(start.elapsed() < WAIT, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Redraws the page has measured (each answers one input).
    fn redraws(&self) -> u64 {
        self.js("return Number(document.getElementById('status').dataset.redraws || 0);")
            .as_u64()
            .unwrap_or(0)
    }

    fn wait_ready(&self) {
        self.wait_for(
            "the first chart",
            "const s = document.getElementById('status');
             return s && Number(s.dataset.points) > 0 && Number(s.dataset.redraws) > 0 ? true : null;",
        );
    }

    fn after_input(&self, what: &str, before: u64) {
        self.wait_for(
            what,
            &format!(
                "return Number(document.getElementById('status').dataset.redraws) > {before} ? true : null;"
            ),
        );
    }

    /// A fingerprint of the chart's pixels: size and an FNV-1a hash of the RGBA data.
    fn canvas(&self) -> String {
        self.js("const c = document.getElementById('chart');
             const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
             let h = 2166136261;
             for (let i = 0; i < d.length; i++) { h = Math.imul(h ^ d[i], 16777619) >>> 0; }
             return c.width + 'x' + c.height + ':' + h.toString(16);")
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn blank(&self) -> bool {
        self.js("const c = document.getElementById('chart');
             const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
             let coloured = 0;
             for (let i = 0; i < d.length; i += 4) {
               if (d[i] !== d[i+1] || d[i+1] !== d[i+2]) coloured++;
             }
             return coloured < 100;")
            .as_bool()
            .unwrap_or(true)
    }

    fn latency(&self) -> (f64, f64, u64) {
        let v = self.js("const s = document.getElementById('status').dataset;
             return [Number(s.lastMs), Number(s.p95Ms), Number(s.points)];");
        (
            v[0].as_f64().unwrap_or(f64::NAN),
            v[1].as_f64().unwrap_or(f64::NAN),
            v[2].as_u64().unwrap_or(0),
        )
    }

    fn close(&self) {
        let _ = http(self.port, "DELETE", &format!("/session/{}", self.id), None);
    }
}

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

    // Close the panel (its ring marks the chosen point), then copy the link and open
    // it in a fresh browser: the same view.
    page.click("#detail .close");
    page.wait_for(
        "the detail panel to close",
        "return document.getElementById('detail') ? null : true;",
    );
    page.click("#copy-link");
    let link = page
        .js("return document.getElementById('share-link').value;")
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        link.contains("axis=spec") && link.contains("gb200"),
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
