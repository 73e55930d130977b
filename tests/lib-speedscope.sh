# Sourced by the speedscope tests (t0770, t0775) after test-lib.sh.
#
# speedscope_tools: sets SS_TOOLS to a directory whose node_modules holds
# speedscope (its viewer and file-format-schema.json) and ajv-cli, test-only
# tools pinned by tests/browser/speedscope/package-lock.json.  They are
# installed from the npm registry with `npm ci` once, into a cache named by
# the lock's hash, which later runs reuse (PMREC_TEST_CACHE, default
# ~/.cache/pmrec-tests); skips the file when npm cannot install them.
speedscope_tools() {
	local pkg=$SRC_DIR/tests/browser/speedscope cache tmp
	cache=${PMREC_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmrec-tests}
	SS_TOOLS=$cache/speedscope-$(sha256sum "$pkg/package-lock.json" | cut -c1-16)
	SS_RELEASE=$SS_TOOLS/node_modules/speedscope/dist/release
	SS_AJV=$SS_TOOLS/node_modules/ajv-cli/dist/index.js
	[ -f "$SS_RELEASE/file-format-schema.json" ] && [ -f "$SS_AJV" ] && return 0
	command -v npm >/dev/null 2>&1 || test_skip_all "no npm (apt-get install npm)"
	mkdir -p "$cache" && tmp=$(mktemp -d "$cache/.install.XXXXXX") &&
		cp "$pkg/package.json" "$pkg/package-lock.json" "$tmp/" &&
		(cd "$tmp" && npm ci --no-audit --no-fund) >"$TMP_ROOT/npm.log" 2>&1 ||
		{ cat "$TMP_ROOT/npm.log" >&2; rm -rf "$tmp";
		  test_skip_all "npm ci of speedscope and ajv-cli failed (see above)"; }
	# Another run may have finished first: its copy is as good.
	mv -T "$tmp" "$SS_TOOLS" 2>/dev/null || rm -rf "$tmp"
}

# ss_validate FILE: FILE against speedscope's own schema (ajv wants .json).
ss_validate() {
	node "$SS_AJV" validate --strict=false -s "$SS_RELEASE/file-format-schema.json" -d "$1"
}
