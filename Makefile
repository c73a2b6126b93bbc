# zellij-mcp: build, install, demo, test and benchmark.
ZELLIJ_VERSION := 0.45.1
WASM_TARGET    := wasm32-wasip1
# The bridge is also checked for macOS (it needs no C library there): on
# Apple silicon only, as nothing it uses differs on Intel Macs (the process
# record it parses is of fixed-width fields), and each target costs CI
# about 4.5 minutes.
MACOS_TARGETS  := aarch64-apple-darwin
PLUGIN_WASM    := target/$(WASM_TARGET)/release/zellij-mcp.wasm
BRIDGE_BIN     := target/release/zellij-mcp
LAYOUT_DIR     := $(HOME)/.config/zellij/layouts
INK_FIXTURE    := bridge/tests/fixtures/ink-echo
INSPECTOR      := bridge/tests/fixtures/inspector
CLAUDE_CODE    := bridge/tests/fixtures/claude-code
CLAUDE_CODE_FIRST := bridge/tests/fixtures/claude-code-2.1.197
CODEX          := bridge/tests/fixtures/codex
GEMINI_CLI     := bridge/tests/fixtures/gemini-cli
OPENCODE       := bridge/tests/fixtures/opencode
OPENCODE_CONFIG := bridge/tests/fixtures/opencode-config
QWEN_CODE      := bridge/tests/fixtures/qwen-code
AIDER          := target/agent-programs/aider
AIDER_REQS     := bridge/tests/fixtures/aider/requirements.txt
ASCIINEMA      := target/test-tools/asciinema
ASCIINEMA_REQS := bridge/tests/fixtures/asciinema/requirements.txt
PY_CLIENT      := target/mcp-clients/venv
PY_CLIENT_REQS := bridge/tests/clients/requirements.txt

export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: all plugin bridge zellij wasm-target macos-targets test-deps test fuzz demo bench soak churn install lint clean

all: plugin bridge

wasm-target:
	@rustup target list --installed | grep -qx $(WASM_TARGET) || rustup target add $(WASM_TARGET)

macos-targets:
	@for t in $(MACOS_TARGETS); do \
		rustup target list --installed | grep -qx $$t || rustup target add $$t; \
	done

plugin: wasm-target
	cargo build --release -p zellij-mcp-plugin --target $(WASM_TARGET)

# The bridge carries the plugin it was built with, so the plugin comes first.
bridge: plugin
	cargo build --release -p zellij-mcp -p zellij-mcp-harness

# The pinned Zellij, built only when `zellij --version` differs. LTO off
# roughly halves the build (about 13 minutes on 2 cores).
zellij: wasm-target
	@if zellij --version 2>/dev/null | grep -qx "zellij $(ZELLIJ_VERSION)"; then \
		echo "zellij $(ZELLIJ_VERSION) is installed"; \
	else \
		CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
		cargo install zellij --locked --version $(ZELLIJ_VERSION); \
	fi

# The real Ink app the end-to-end tests submit into, MCP clients nobody
# here wrote (the MCP Inspector's CLI, the Python SDK), Claude Code (its
# agent teams open panes through the tmux shim), Codex CLI, Gemini CLI,
# opencode, Qwen Code and aider (a venv of its own), pinned, and the
# shells runs are typed into (zsh, fish: Debian's packages); npm and pip
# keep their downloads in their caches between runs.
test-deps:
	@command -v zsh >/dev/null && command -v fish >/dev/null || \
		apt-get install -y --no-install-recommends zsh fish
	npm ci --prefix $(INK_FIXTURE) --no-audit --no-fund
	npm ci --prefix $(INSPECTOR) --no-audit --no-fund
	npm ci --prefix $(CLAUDE_CODE) --no-audit --no-fund
	npm ci --prefix $(CLAUDE_CODE_FIRST) --no-audit --no-fund
	npm ci --prefix $(CODEX) --no-audit --no-fund --ignore-scripts
	npm ci --prefix $(GEMINI_CLI) --no-audit --no-fund --ignore-scripts
	# npm ci refuses opencode's lock (it leaves out the other platforms'
	# binaries); install takes it as it is, and links this platform's binary.
	npm install --prefix $(OPENCODE) --no-audit --no-fund
	npm ci --prefix $(OPENCODE_CONFIG) --no-audit --no-fund --ignore-scripts
	# npm ci refuses Qwen Code's lock too (the registry has no macOS or
	# Windows build of its clipboard package, so the lock leaves them out).
	npm install --prefix $(QWEN_CODE) --no-audit --no-fund --ignore-scripts
	@if ! cmp -s $(PY_CLIENT_REQS) $(PY_CLIENT)/installed.txt; then \
		python3 -m venv $(PY_CLIENT) && \
		$(PY_CLIENT)/bin/pip install --quiet --disable-pip-version-check -r $(PY_CLIENT_REQS) && \
		cp $(PY_CLIENT_REQS) $(PY_CLIENT)/installed.txt; \
	fi
	@if ! cmp -s $(AIDER_REQS) $(AIDER)/installed.txt; then \
		python3 -m venv $(AIDER) && \
		$(AIDER)/bin/pip install --quiet --disable-pip-version-check -r $(AIDER_REQS) && \
		cp $(AIDER_REQS) $(AIDER)/installed.txt; \
	fi
	@if ! cmp -s $(ASCIINEMA_REQS) $(ASCIINEMA)/installed.txt; then \
		python3 -m venv $(ASCIINEMA) && \
		$(ASCIINEMA)/bin/pip install --quiet --disable-pip-version-check -r $(ASCIINEMA_REQS) && \
		cp $(ASCIINEMA_REQS) $(ASCIINEMA)/installed.txt; \
	fi

# Unit tests (protocol, plugin natively, bridge) and the end-to-end suite
# against real Zellij sessions.
test: zellij plugin test-deps
	cargo test --workspace --no-fail-fast -- --test-threads=2

# The property tests of `make test` (10,000 cases each), with many more cases.
FUZZ_CASES ?= 200000
fuzz:
	PROPTEST_CASES=$(FUZZ_CASES) cargo test -p zellij-mcp-protocol -p zellij-mcp-plugin properties -- --test-threads=2

demo: zellij all
	target/release/demo $(BRIDGE_BIN)

bench: zellij all test-deps
	target/release/bench $(BRIDGE_BIN) 200

# Many mixed calls from 8 callers on one session; prints the plugin's memory.
SOAK_CALLS ?= 100000
soak: zellij all
	target/release/soak $(BRIDGE_BIN) $(SOAK_CALLS)

# Many mixed calls from 4 callers while clients come and go and the lease
# moves between the plugin's instances; counts effects missing, twice,
# merged or wrong, and typed errors by code.
CHURN_CALLS ?= 10000
churn: zellij all test-deps
	target/release/churn $(BRIDGE_BIN) $(CHURN_CALLS)

# The binary carries the plugin (built first); `zellij-mcp setup` installs it.
install: plugin
	cargo install --locked --path bridge
	install -D -m 644 layouts/agents.kdl $(LAYOUT_DIR)/agents.kdl
	install -D -m 644 layouts/zellij-mcp.kdl $(LAYOUT_DIR)/zellij-mcp.kdl
	@echo "installed: $(HOME)/.cargo/bin/zellij-mcp, carrying its plugin"
	@echo "next:      zellij-mcp setup"

lint: macos-targets
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p zellij-mcp-plugin --target $(WASM_TARGET) -- -D warnings
	@for t in $(MACOS_TARGETS); do \
		echo "cargo clippy -p zellij-mcp --target $$t"; \
		cargo clippy -p zellij-mcp --target $$t -- -D warnings || exit 1; \
	done

clean:
	cargo clean
