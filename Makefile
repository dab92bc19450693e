# splashd — the two commands the README promises, and their parts.
#   make run    set up a fresh Debian 12 machine, start the local backend (devstack), run splashd in the foreground
#   make test   set up, build, and run every test: Swift unit and integration tests, devstack's own tests,
#               the web gallery in a real browser, the desktop's signals on private D-Bus buses, the
#               system test under a real systemd, and the reliability suite's short mode
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
SWIFT_BUILD_FLAGS ?=
BIN := .build/debug

.PHONY: all setup build run test test-swift test-devstack test-gallery test-desktop test-system test-powerfs test-chaos chaos docs release man install uninstall deb test-deb clean bench

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
	$(MAKE) --no-print-directory test-swift test-devstack test-gallery test-desktop test-system test-powerfs test-chaos

# One test target at a time: every target is a separate process, so a suite that spawns daemons,
# Postgres and network namespaces never starves another's timers on a two-core machine.
SWIFT_TEST_TARGETS := SupportTests SharedTests EditingTests StoreTests RealtimeTests ControlTests DaemonTests WebTests HTTPTests ConnectivityTests AccountTests SyncTests SourceTests

# HTTP2Tests runs alone (see Tests/HTTPTests/HTTP2Tests.swift). A test target missing from the list
# above would never run: the loop refuses to start without every folder of Tests/ but the two that
# support the others (TestSupport, DaemonTestSupport).
test-swift:
	@missing=$$(for d in Tests/*/; do t=$$(basename $$d); case $$t in TestSupport|DaemonTestSupport) continue;; esac; \
		case " $(SWIFT_TEST_TARGETS) " in *" $$t "*) ;; *) echo $$t ;; esac; done); \
		[ -z "$$missing" ] || { echo "test-swift: test targets not in SWIFT_TEST_TARGETS: $$missing" >&2; exit 1; }
	@for target in $(SWIFT_TEST_TARGETS); do \
		echo "== swift test: $$target"; \
		timeout 900 swift test --skip-build --filter "^$$target\\." --skip "HTTP2Tests" || exit 1; \
	done
	@echo "== swift test: HTTPTests.HTTP2Tests"; timeout 300 swift test --skip-build --filter "HTTPTests.HTTP2Tests"

test-devstack:
	devstack/test

# The web gallery in Debian's chromium, headless, driven by Selenium (integration/gallery).
test-gallery:
	integration/gallery/run $(BIN)

# The desktop's signals over D-Bus: private buses, stand-ins for NetworkManager, UPower,
# power-profiles-daemon and logind (integration/desktop, docs/desktop.md).
test-desktop:
	integration/desktop/run $(BIN)

test-system:
	integration/system/run $(BIN)

# powerfs, the power-loss tests' FUSE file system (chaos/powerfs), against its own tests.
test-powerfs:
	chaos/powerfs/run -q

# The reliability suite's short mode (about 6 minutes) on the debug binaries just built: every part,
# 20 crash trials, 10,000 fuzzed lines, 12 two-device histories, 64 power cuts. Any check that fails fails the run.
test-chaos:
	CHAOS_BIN=$(CURDIR)/$(BIN) CHAOS_SKIP_BUILD=1 chaos/run --short

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
MANPAGES := .build-release/plugins/GenerateManual/outputs
MAN1 := $(DESTDIR)$(PREFIX)/share/man/man1
# The web gallery's page (splashd finds it at ../share/splashd/web beside its binary).
WEBDIR := $(DESTDIR)$(PREFIX)/share/splashd/web

# Release binaries with the Swift runtime linked in (--static-swift-stdlib): they need only Debian's
# own libraries, so the .deb runs on a machine without a Swift toolchain. One product at a time (the
# test support target is not part of a release). With scripts/release-flags: every function in a section
# of its own, and those an idle daemon runs laid out together.
release: setup
	swift build -c release --scratch-path .build-release --static-swift-stdlib --product splashd $$(scripts/release-flags) $(SWIFT_BUILD_FLAGS)
	swift build -c release --scratch-path .build-release --static-swift-stdlib --product splashctl $$(scripts/release-flags) $(SWIFT_BUILD_FLAGS)

# Man pages for splashd and every splashctl command, from their --help (swift-argument-parser's
# generate-manual plugin). splashctl's help follows the locale (English or Brazilian Portuguese), and
# these pages go to man1, so they are made in English whatever the builder's locale (LC_ALL wins).
man: setup
	LC_ALL=C.UTF-8 swift package --scratch-path .build-release $$(scripts/release-flags) --allow-writing-to-package-directory generate-manual \
		--configuration release --multi-page --authors "the splashd authors"

# Release binaries, the units (user and system), man pages, and bash/zsh/fish completions for splashctl
# (their descriptions in English, as the man pages).
# `man` before `release`: the manual plugin builds the executables in the same scratch directory without
# --static-swift-stdlib, and `release` then links them again with the runtime inside (integration/deb/run caught a
# package whose binaries wanted libswiftCore.so). The manual's build takes the release flags too: the compiler
# keeps an object file whose code is unchanged (.swift_modhash) even when the flags that lay it out differ,
# so objects built without function sections would stay without them.
install: man release
	install -d $(BINDIR) $(COMPLETIONS_BASH) $(COMPLETIONS_ZSH) $(COMPLETIONS_FISH) $(USER_UNITS) $(SYSTEM_UNITS) $(MAN1)
	install -m 0755 $(RELEASE)/splashd $(RELEASE)/splashctl $(BINDIR)/
	LC_ALL=C.UTF-8 $(RELEASE)/splashctl --generate-completion-script bash > $(COMPLETIONS_BASH)/splashctl
	LC_ALL=C.UTF-8 $(RELEASE)/splashctl --generate-completion-script zsh > $(COMPLETIONS_ZSH)/_splashctl
	LC_ALL=C.UTF-8 $(RELEASE)/splashctl --generate-completion-script fish > $(COMPLETIONS_FISH)/splashctl.fish
	for unit in systemd/user/*; do sed 's|/usr/local/bin|$(PREFIX)/bin|g' $$unit > $(USER_UNITS)/$$(basename $$unit); done
	for unit in systemd/system/*; do sed 's|/usr/local/bin|$(PREFIX)/bin|g' $$unit > $(SYSTEM_UNITS)/$$(basename $$unit); done
	for page in $(MANPAGES)/splashd/*.1 $(MANPAGES)/splashctl/*.1; do gzip -9n < $$page > $(MAN1)/$$(basename $$page).gz; done
	install -d $(WEBDIR)
	install -m 0644 web/* $(WEBDIR)/
	@echo "installed; a workstation then runs: splashctl setup   (or: systemctl --user daemon-reload && systemctl --user enable --now splashd.socket)"

uninstall:
	rm -f $(BINDIR)/splashd $(BINDIR)/splashctl $(COMPLETIONS_BASH)/splashctl $(COMPLETIONS_ZSH)/_splashctl $(COMPLETIONS_FISH)/splashctl.fish
	rm -f $(USER_UNITS)/splashd.service $(USER_UNITS)/splashd.socket $(USER_UNITS)/splashd-web.socket $(SYSTEM_UNITS)/splashd@.service $(SYSTEM_UNITS)/splashd@.socket
	rm -f $(MAN1)/splashd.1.gz $(MAN1)/splashctl.1.gz $(MAN1)/splashctl.*.1.gz
	rm -rf $(WEBDIR)

# A Debian package (dist/splashd_<version>_<arch>.deb) built with dpkg-deb from `make install` into a
# staging tree; integration/deb/run installs it into a fresh Debian 12 and starts its unit.
deb: man release
	scripts/make-deb

# Not part of `make test` (a release build, debootstrap and apt take longer than the whole default
# suite): run before a release.
test-deb: deb
	integration/deb/run

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
