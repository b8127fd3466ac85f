//! The few browser calls the page makes: the address bar, the clipboard, a clock and
//! localStorage. Each one degrades quietly when the browser refuses.

use crate::storage::Store;
use gloo_storage::{LocalStorage, Storage};
use wasm_bindgen::JsCast;

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// The query of the page's address, with its `?`.
pub fn query() -> String {
    window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// The address that opens `query`: this page with that query.
pub fn link_for(query: &str) -> String {
    let Some(loc) = window().map(|w| w.location()) else {
        return format!("?{query}");
    };
    let origin = loc.origin().unwrap_or_default();
    let path = loc.pathname().unwrap_or_default();
    format!("{origin}{path}?{query}")
}

/// Puts `query` in the address bar without a reload or a history entry.
pub fn replace_query(query: &str) {
    if let Some(history) = window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("?{query}")),
        );
    }
}

/// Moves the keyboard focus to the element with `id`, if there is one.
pub fn focus(id: &str) {
    use wasm_bindgen::JsCast;
    if let Some(e) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = e.focus();
    }
}

/// Asks the browser to copy `text`; false when there is no clipboard to ask.
pub fn copy(text: &str) -> bool {
    match window().map(|w| w.navigator().clipboard()) {
        Some(clipboard) => {
            // A refusal (no permission, no focus) is shown by the visible link.
            let _ = clipboard.write_text(text);
            true
        }
        None => false,
    }
}

/// Copies `text` to the clipboard and calls `done(true)`; where the browser has no
/// clipboard or refuses (no permission, an insecure page), selects the contents of
/// the element `id` for the user to copy and calls `done(false)`.
pub fn copy_or_select(text: &str, id: &str, done: impl FnOnce(bool) + 'static) {
    let id = id.to_string();
    let navigator = window().map(|w| w.navigator());
    // `navigator.clipboard` is undefined outside secure contexts: asked first, so
    // that no call is made on undefined.
    let has_clipboard = navigator.as_ref().is_some_and(|n| {
        js_sys::Reflect::get(n, &wasm_bindgen::JsValue::from_str("clipboard"))
            .is_ok_and(|c| !c.is_undefined() && !c.is_null())
    });
    match navigator.filter(|_| has_clipboard) {
        Some(n) => {
            let promise = n.clipboard().write_text(text);
            leptos::task::spawn_local(async move {
                let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
                if !copied {
                    select_contents(&id);
                }
                done(copied);
            });
        }
        None => {
            select_contents(&id);
            done(false);
        }
    }
}

/// Selects everything inside the element `id`, as a user's drag would.
pub fn select_contents(id: &str) {
    let Some(w) = window() else { return };
    let element = w.document().and_then(|d| d.get_element_by_id(id));
    if let (Some(e), Ok(Some(selection))) = (element, w.get_selection()) {
        let _ = selection.select_all_children(&e);
    }
}

/// Offers `text` as a file named `name` of type `mime`; false when the browser
/// refuses.
pub fn download_text(name: &str, mime: &str, text: &str) -> bool {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return false;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return false;
    };
    // The download reads the blob after this returns: the address is released at the
    // next export instead of now.
    thread_local! {
        static LAST: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    }
    if let Some(old) = LAST.with(|l| l.borrow_mut().replace(url.clone())) {
        let _ = web_sys::Url::revoke_object_url(&old);
    }
    download_url(name, &url)
}

/// Offers the canvas `id` as a PNG file named `name`, at its full device resolution.
pub fn download_canvas_png(id: &str, name: &str) -> bool {
    use wasm_bindgen::JsCast;
    window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        .and_then(|c| c.to_data_url_with_type("image/png").ok())
        .is_some_and(|url| download_url(name, &url))
}

/// Clicks a temporary link that downloads `url` as `name`.
fn download_url(name: &str, url: &str) -> bool {
    use wasm_bindgen::JsCast;
    let Some(a) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    else {
        return false;
    };
    a.set_href(url);
    a.set_download(name);
    a.click();
    true
}

/// Runs `f` in a task of its own, after the browser has had its turn (input, paint):
/// long work split this way never holds the page for the sum of its parts. Runs `f`
/// at once when there is no window to schedule on.
pub fn next_task(f: impl FnOnce() + 'static) {
    let Some(w) = window() else {
        f();
        return;
    };
    let callback = wasm_bindgen::closure::Closure::once_into_js(f);
    let _ = w.set_timeout_with_callback(callback.unchecked_ref());
}

/// Runs `f` after `ms` milliseconds (at once, in this task, without a window).
pub fn after_ms(ms: f64, f: impl FnOnce() + 'static) {
    let Some(w) = window() else {
        f();
        return;
    };
    let callback = wasm_bindgen::closure::Closure::once_into_js(f);
    // Rounded up: a timer that fires before `ms` have passed would find its time not
    // yet come.
    let delay = ms.ceil().clamp(0.0, i32::MAX as f64) as i32;
    let _ =
        w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), delay);
}

/// Milliseconds on the page's monotonic clock.
pub fn now_ms() -> f64 {
    window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

pub fn device_pixel_ratio() -> f64 {
    window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
}

/// localStorage through gloo; a browser that blocks storage simply forgets.
pub struct BrowserStore;

impl Store for BrowserStore {
    fn read(&self, key: &str) -> Option<String> {
        LocalStorage::raw().get_item(key).ok().flatten()
    }
    fn write(&mut self, key: &str, value: &str) {
        let _ = LocalStorage::raw().set_item(key, value);
    }
    fn remove(&mut self, key: &str) {
        LocalStorage::delete(key);
    }
}

/// The file chosen in the file input an event came from.
pub fn chosen_file(ev: &web_sys::Event) -> Option<web_sys::File> {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .and_then(|input| input.files())
        .and_then(|files| files.get(0))
}

/// A file's text (`None` when it cannot be read as text).
pub async fn file_text(file: web_sys::File) -> Option<String> {
    wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|v| v.as_string())
}
