# splashd — the two commands the README promises, and their parts.
#   make run    set up a fresh Debian 12 machine, start the local backend (devstack), run splashd in the foreground
#   make test   set up, build, and run every test: Swift unit and integration tests, devstack's own tests,
#               and the system test under a real systemd
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
SWIFT_BUILD_FLAGS ?=
BIN := .build/debug

.PHONY: all setup build run test test-swift test-devstack test-system chaos docs install uninstall clean bench

all: build

setup:
	@scripts/setup-debian

build: setup
	swift build $(SWIFT_BUILD_FLAGS)

# The daemon in the foreground against devstack (a real Postgres with the project's migrations and
# stand-ins for Supabase, Unsplash and NASA on 127.0.0.1). In a second shell:
#   eval "$$(devstack/devstack env)"; .build/debug/splashctl status
run: build
	@devstack/devstack up >/dev/null
	@echo "splashd: starting in the foreground; Ctrl-C stops it. In another shell: .build/debug/splashctl status" >&2
	@set -a; eval "$$(devstack/devstack env)"; set +a; exec $(BIN)/splashd

test: setup
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	$(MAKE) --no-print-directory test-swift test-devstack test-system

# One test target at a time: every target is a separate process, so a suite that spawns daemons,
# Postgres and network namespaces never starves another's timers on a two-core machine.
SWIFT_TEST_TARGETS := SharedTests EditingTests StoreTests ControlTests DaemonTests HTTPTests ConnectivityTests AccountTests SyncTests SourceTests

# HTTP2Tests runs alone (see Tests/HTTPTests/HTTP2Tests.swift).
test-swift:
	@for target in $(SWIFT_TEST_TARGETS); do \
		echo "== swift test: $$target"; \
		timeout 900 swift test --skip-build --filter "^$$target\\." --skip "HTTP2Tests" || exit 1; \
	done
	@echo "== swift test: HTTPTests.HTTP2Tests"; timeout 300 swift test --skip-build --filter "HTTPTests.HTTP2Tests"

test-devstack:
	devstack/test

test-system:
	tests/system/run $(BIN)

# The reliability and security suite (chaos/README.md): release binaries in .build-chaos against a
# devstack of its own. The full run writes docs/reliability.md; CHAOS_ARGS=--short is the quick one.
chaos: setup
	chaos/run $(CHAOS_ARGS)

# Release binaries, the units (user and system), and bash/zsh/fish completions for splashctl.
DESTDIR ?=
BINDIR := $(DESTDIR)$(PREFIX)/bin
COMPLETIONS_BASH := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
COMPLETIONS_ZSH := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
COMPLETIONS_FISH := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
USER_UNITS := $(DESTDIR)$(PREFIX)/lib/systemd/user
SYSTEM_UNITS := $(DESTDIR)$(PREFIX)/lib/systemd/system

RELEASE := .build-release/release

install: setup
	swift build -c release --scratch-path .build-release $(SWIFT_BUILD_FLAGS)
	install -d $(BINDIR) $(COMPLETIONS_BASH) $(COMPLETIONS_ZSH) $(COMPLETIONS_FISH) $(USER_UNITS) $(SYSTEM_UNITS)
	install -m 0755 $(RELEASE)/splashd $(RELEASE)/splashctl $(BINDIR)/
	$(RELEASE)/splashctl --generate-completion-script bash > $(COMPLETIONS_BASH)/splashctl
	$(RELEASE)/splashctl --generate-completion-script zsh > $(COMPLETIONS_ZSH)/_splashctl
	$(RELEASE)/splashctl --generate-completion-script fish > $(COMPLETIONS_FISH)/splashctl.fish
	for unit in systemd/user/*; do sed 's|/usr/local/bin|$(PREFIX)/bin|g' $$unit > $(USER_UNITS)/$$(basename $$unit); done
	for unit in systemd/system/*; do sed 's|/usr/local/bin|$(PREFIX)/bin|g' $$unit > $(SYSTEM_UNITS)/$$(basename $$unit); done
	@echo "installed; a workstation then runs: systemctl --user daemon-reload && systemctl --user enable --now splashd.socket"

uninstall:
	rm -f $(BINDIR)/splashd $(BINDIR)/splashctl $(COMPLETIONS_BASH)/splashctl $(COMPLETIONS_ZSH)/_splashctl $(COMPLETIONS_FISH)/splashctl.fish
	rm -f $(USER_UNITS)/splashd.service $(USER_UNITS)/splashd.socket $(SYSTEM_UNITS)/splashd@.service $(SYSTEM_UNITS)/splashd@.socket

clean:
	rm -rf .build

# docs/protocol.md = a hand-written introduction + the method reference generated from daemon.describe.
docs: build
	@d=$$(mktemp -d); $(BIN)/splashd --state-dir $$d/s --data-dir $$d/d --cache-dir $$d/c --socket $$d/c.sock 2>/dev/null & pid=$$!; \
	for i in $$(seq 50); do [ -S $$d/c.sock ] && break; sleep 0.1; done; \
	{ cat docs/protocol-intro.md; scripts/protocol-doc $$d/c.sock; } > docs/protocol.md; kill $$pid; wait $$pid; rm -rf $$d

# Benchmarks beside the tools a user would use instead (issue 11): builds release binaries, starts its own
# devstack, writes bench/results/ and docs/performance.md. Not part of `make test`; timings never fail.
#   make bench BENCH_ARGS=--quick
BENCH_ARGS ?=
bench:
	bench/run $(BENCH_ARGS)
