//! `disagg predict --explain`: the headline figures as chains of formulas and inputs,
//! then each pool's steps operator by operator.

use disagg_engine::disagg::explain::Explained;
use disagg_engine::explain::render_all;
use disagg_engine::kernel::OperatorTable;
use disagg_engine::units::Bytes;

pub fn print(e: &Explained) {
    out!("");
    out!("How each figure is computed (values in SI units; MODEL.md § names the section):");
    out!("");
    for line in render_all(&e.chains).lines() {
        out!("  {line}");
    }
    out!("");
    out!("Topology (MODEL.md 6.9):");
    for n in &e.topology.pools {
        out!(
            "  {} pool: {}x {} ({}), {} scale-up domain(s) of {}",
            n.role.name(),
            n.chips,
            n.chip_name,
            n.parallelism,
            n.domains,
            n.scale_up_domain
        );
    }
    for l in &e.topology.links {
        out!("  link {}", l.line());
    }
    out!("  {}", e.topology.summary());
    for pool in &e.point.pools {
        for table in &pool.operators {
            out!("");
            print_table(
                &format!(
                    "{} pool ({}x {})",
                    pool.role.name(),
                    pool.chips,
                    pool.chip_name
                ),
                table,
            );
        }
    }
}

/// Gigabytes with three decimals, a dash for nothing.
fn gb(b: Bytes) -> String {
    if b.value() > 0.0 {
        format!("{:.3}", b.gb())
    } else {
        "-".into()
    }
}

fn print_table(pool: &str, t: &OperatorTable) {
    out!(
        "{pool}, {}: {:.3} ms per chip, operator by operator",
        t.phase,
        t.step.ms()
    );
    out!(
        "  {:<44} {:<26} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:<13} {:>9} {:>6}",
        "layers",
        "operator",
        "GFLOP",
        "W GB",
        "KV GB",
        "act GB",
        "link GB",
        "FLOP/B",
        "bound",
        "ms",
        "share"
    );
    for r in &t.rows {
        out!(
            "  {:<44} {:<26} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:<13} {:>9.4} {:>5.1}%",
            r.layers,
            r.op,
            if r.flops.value() > 0.0 {
                format!("{:.2}", r.flops.value() / 1e9)
            } else {
                "-".into()
            },
            gb(r.weight_bytes),
            gb(r.kv_bytes),
            gb(r.activation_bytes),
            gb(r.link_bytes),
            r.intensity.map_or("-".into(), |i| format!("{i:.1}")),
            r.bound.name(),
            r.time.ms(),
            r.share * 100.0
        );
    }
}
