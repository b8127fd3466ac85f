//! A small WebDriver client and file server for the end-to-end test: it serves
//! `dist/` on loopback, starts chromedriver and speaks the WebDriver protocol over
//! plain HTTP, so it needs no extra crates.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

pub const WAIT: Duration = Duration::from_secs(60);

pub fn dist() -> PathBuf {
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
pub fn serve(root: PathBuf) -> String {
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

pub struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    pub fn start() -> Driver {
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
    pub fn session(&self) -> Session {
        self.session_with(json!({}))
    }

    /// A fresh browser that emulates a phone `width` CSS pixels wide (Chromium's
    /// windows are never narrower than 500 pixels, its device emulation is).
    pub fn phone(&self, width: u32, height: u32) -> Session {
        self.session_with(json!({"mobileEmulation": {"deviceMetrics": {
            "width": width, "height": height, "pixelRatio": 3.0
        }}}))
    }

    fn session_with(&self, extra: Value) -> Session {
        static SESSIONS: AtomicU32 = AtomicU32::new(0);
        let profile = std::env::temp_dir().join(format!(
            "disagg-e2e-{}-{}",
            std::process::id(),
            SESSIONS.fetch_add(1, Ordering::Relaxed)
        ));
        let mut options = json!({
                "binary": std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
                "args": ["--headless", "--no-sandbox", "--disable-gpu",
                         "--disable-background-networking", "--disable-component-update",
                         "--no-first-run", "--disable-sync", "--disable-quic",
                         "--window-size=1400,1600", "--force-device-scale-factor=1",
                         format!("--user-data-dir={}", profile.display())]
        });
        if let (Some(o), Some(e)) = (options.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": options
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

/// A session ends with its browser, even when a check fails midway (a browser left
/// running would slow every later measurement on the machine).
impl Drop for Session {
    fn drop(&mut self) {
        self.close();
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

pub struct Session {
    port: u16,
    id: String,
}

impl Session {
    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
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

    pub fn open(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    pub fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    /// What `script` returns, as text (empty when it returns no string).
    pub fn js_text(&self, script: &str) -> String {
        self.js(script).as_str().unwrap_or_default().to_string()
    }

    /// Runs `script` as an async function body; it ends by calling `done(value)`.
    pub fn js_async(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/async",
            Some(json!({ "script": format!("const done = arguments[0];\n{script}"), "args": [] })),
        )
    }

    /// The axe-core audit of the page as it stands: each serious or critical
    /// violation as "rule (impact): first elements".
    pub fn accessibility_violations(&self) -> Vec<String> {
        let path = std::env::var("AXE_CORE_JS").unwrap_or_else(|_| {
            format!(
                "{}/.tools/node_modules/axe-core/axe.min.js",
                env!("CARGO_MANIFEST_DIR")
            )
        });
        let axe = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("no axe-core at {path}: {e} (scripts/setup.sh installs it)")
        });
        self.js(&format!("{axe}\n;return true;"));
        let found = self.js_async(
            "axe.run(document, {resultTypes: ['violations']}).then(r => done(
               r.violations
                .filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => v.id + ' (' + v.impact + '): ' +
                     v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))));",
        );
        found
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_else(|| vec![format!("axe did not answer: {found}")])
    }

    /// Types `value` into the field with id `id` and commits it (a `change` event), as
    /// a user does by leaving the field.
    pub fn set_value(&self, id: &str, value: &str) {
        self.js(&format!(
            "const e = document.getElementById({}); e.value = {};
             e.dispatchEvent(new Event('change', {{bubbles: true}})); return true;",
            json!(id),
            json!(value)
        ));
    }

    /// Waits for the sweep a change started to finish (a moment for it to start first).
    pub fn settle(&self) {
        std::thread::sleep(Duration::from_millis(300));
        self.wait_for(
            "the sweep to finish",
            "return document.getElementById('status').dataset.sweeping === 'false' ? true : null;",
        );
    }

    /// Clicks the detail panel's figure named `name` and waits for its chain, whose
    /// formula starts with `formula`; returns that formula.
    pub fn open_figure(&self, name: &str, formula: &str) -> String {
        self.js(&format!(
            "const b = [...document.querySelectorAll('#detail .figure-value')]
                 .find(b => b.parentElement.previousElementSibling.textContent === {name:?});
             b.click(); return true;"
        ));
        self.wait_for(
            name,
            &format!(
                "const f = document.querySelector('#chain-panel .chain .formula');
                 return f && f.textContent.startsWith({formula:?}) ? true : null;"
            ),
        );
        self.text("#chain-panel .chain .formula")
    }

    /// The address the page shows, which holds its whole scenario.
    pub fn href(&self) -> String {
        self.js_text("return location.href;")
    }

    pub fn text(&self, css: &str) -> String {
        self.js_text(&format!(
            "const e = document.querySelector({css:?}); return e ? e.innerText : '';"
        ))
    }

    /// A real WebDriver click on the element `css` finds.
    pub fn click(&self, css: &str) {
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

    pub fn wait_for(&self, what: &str, script: &str) -> Value {
        let start = Instant::now();
        loop {
            let v = self.js(script);
            if !v.is_null() && v != json!(false) && v != json!("") {
                return v;
            }
            if start.elapsed() >= WAIT {
                let page = self.js(
                    "const s = document.getElementById('status');
                     return [location.href, s ? s.outerHTML : 'no status', document.body.innerText.slice(0, 600)];",
                );
                panic!("timed out waiting for {what}; the page: {page}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Redraws the page has measured (each answers one input).
    pub fn redraws(&self) -> u64 {
        self.js("return Number(document.getElementById('status').dataset.redraws || 0);")
            .as_u64()
            .unwrap_or(0)
    }

    /// Waits for the first chart and the measured error beside the verdict (both come
    /// from workers, in either order).
    pub fn wait_ready(&self) {
        self.wait_for(
            "the first chart",
            "const s = document.getElementById('status');
             const sure = document.getElementById('callout-error');
             return s && Number(s.dataset.points) > 0 && Number(s.dataset.redraws) > 0
               && sure && sure.innerText ? true : null;",
        );
    }

    pub fn after_input(&self, what: &str, before: u64) {
        self.wait_for(
            what,
            &format!(
                "return Number(document.getElementById('status').dataset.redraws) > {before} ? true : null;"
            ),
        );
    }

    /// A fingerprint of the chart's pixels: size and an FNV-1a hash of the RGBA data.
    pub fn canvas(&self) -> String {
        self.js_text(
            "const c = document.getElementById('chart');
             const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
             let h = 2166136261;
             for (let i = 0; i < d.length; i++) { h = Math.imul(h ^ d[i], 16777619) >>> 0; }
             return c.width + 'x' + c.height + ':' + h.toString(16);",
        )
    }

    pub fn blank(&self) -> bool {
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

    pub fn latency(&self) -> (f64, f64, u64) {
        let v = self.js("const s = document.getElementById('status').dataset;
             return [Number(s.lastMs), Number(s.p95Ms), Number(s.points)];");
        (
            v[0].as_f64().unwrap_or(f64::NAN),
            v[1].as_f64().unwrap_or(f64::NAN),
            v[2].as_u64().unwrap_or(0),
        )
    }

    pub fn close(&self) {
        let _ = http(self.port, "DELETE", &format!("/session/{}", self.id), None);
    }
}
