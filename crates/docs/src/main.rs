//! `disagg-docs [FOLDER]`: writes the documents' pages, their stylesheet and icon into
//! FOLDER, by default the `docs/` folder of the site Trunk is staging (Trunk runs this
//! after each build and names its staging folder in `TRUNK_STAGING_DIR`).

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let folder = match std::env::args_os().nth(1) {
        Some(f) => PathBuf::from(f),
        None => match std::env::var_os("TRUNK_STAGING_DIR") {
            Some(staging) => PathBuf::from(staging).join(disagg_docs::FOLDER),
            None => {
                eprintln!(
                    "disagg-docs: name the folder to write, or run from Trunk (TRUNK_STAGING_DIR)"
                );
                return ExitCode::FAILURE;
            }
        },
    };
    let written = std::fs::create_dir_all(&folder).and_then(|()| {
        disagg_docs::site()
            .into_iter()
            .try_for_each(|file| std::fs::write(folder.join(&file.name), file.bytes))
    });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("disagg-docs: cannot write {}: {e}", folder.display());
            ExitCode::FAILURE
        }
    }
}
