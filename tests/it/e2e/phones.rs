//! The page on a 390-pixel phone.

use super::driver::Driver;
use serde_json::json;

/// At 390 CSS pixels: no sideways scroll, the verdict above the controls, the detail
/// panel and a tooltip inside the screen.
pub(super) fn phones(driver: &Driver, base: &str) {
    let phone = driver.phone(390, 844);
    phone.open(&format!("{base}/"));
    phone.wait_ready();
    let fits = "return [document.documentElement.scrollWidth, window.innerWidth];";
    assert_eq!(phone.js(fits), json!([390, 390]));
    assert_eq!(
        phone.js(
            "const top = s => document.querySelector(s).getBoundingClientRect().top;
             return top('#callout-verdict') < top('.controls');"
        ),
        json!(true),
        "the verdict is not above the controls"
    );
    // A tooltip near the right edge: hover the rightmost coloured pixel of the plot.
    let tip = phone.js_async(
        "const c = document.getElementById('chart');
         const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
         const scale = c.width / c.clientWidth;
         let best = null;
         for (let y = 0; y < c.height * 0.6; y += 2) {
           for (let x = c.width - 1; x >= 0; x -= 2) {
             const i = (y * c.width + x) * 4;
             const [r, g, b] = [d[i], d[i + 1], d[i + 2]];
             const grey = Math.abs(r - g) < 12 && Math.abs(g - b) < 12;
             const line = r === 136 && g === 34 && b === 170;
             if (!grey && !line) { if (!best || x > best[0]) best = [x, y]; break; }
           }
         }
         const rect = c.getBoundingClientRect();
         c.dispatchEvent(new MouseEvent('mousemove', {bubbles: true,
           clientX: rect.left + best[0] / scale, clientY: rect.top + best[1] / scale}));
         setTimeout(() => {
           const t = document.querySelector('.tooltip');
           if (!t) return done(null);
           const r = t.getBoundingClientRect();
           done([r.left >= 0, r.right <= window.innerWidth]);
         }, 200);",
    );
    assert_eq!(tip, json!([true, true]), "the tooltip leaves the screen");
    phone.click("#frontier-table button");
    phone.wait_for(
        "the detail panel on a phone",
        "return document.getElementById('detail') ? true : null;",
    );
    assert_eq!(
        phone.js(fits),
        json!([390, 390]),
        "the detail widens the page"
    );
    assert_eq!(
        phone.js(
            "const r = document.getElementById('detail').getBoundingClientRect();
                  return r.left >= 0 && r.right <= window.innerWidth;"
        ),
        json!(true)
    );
    let violations = phone.accessibility_violations();
    assert!(violations.is_empty(), "on a phone: {violations:#?}");
    phone.close();
}
