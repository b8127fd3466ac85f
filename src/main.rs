//! Entry point of the page (mounted by Trunk once the Leptos app lands).

fn main() {
    let catalogue = disagg_explorer::engine::Catalogue::builtin();
    println!(
        "Disagg Explorer page: not built yet. The engine has {} chips and {} models; use the `disagg` CLI.",
        catalogue.chips.len(),
        catalogue.models.len()
    );
}
