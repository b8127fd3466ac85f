#!/usr/bin/env bash
# Trunk post-build hook (Trunk.toml): states the page's Content-Security-Policy in its
# index.html. The page loads nothing but its own files: scripts from its own origin plus
# the one inline module Trunk writes to start the wasm (allowed by its SHA-256, which
# changes with every build, hence this hook), WebAssembly compilation, its own
# stylesheet, and images drawn from its own canvas. Only coreutils are used.
set -euo pipefail
html="${TRUNK_STAGING_DIR:?run by Trunk as a post_build hook}/index.html"
page="$(cat "$html")"
open='<script type="module">'
case "$page" in
  *"$open"*) ;;
  *) echo "csp.sh: no inline module script in $html" >&2; exit 1 ;;
esac
loader="${page#*"$open"}"
loader="${loader%%</script>*}"
hex="$(printf '%s' "$loader" | sha256sum | cut -d' ' -f1)"
hash="$(printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" | base64 -w0)"
policy="default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'sha256-$hash'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'"
meta="<meta http-equiv=\"Content-Security-Policy\" content=\"$policy\" />"
# Before anything that loads: right after the charset.
printf '%s\n' "${page/<meta charset=\"utf-8\" \/>/<meta charset=\"utf-8\" />
    $meta}" > "$html"
grep -q 'Content-Security-Policy' "$html"
