# Malibu — the targets CI runs are the ones you run. `make test` is the whole gate.

SWIFT          ?= swift
STRICT_FLAGS   := -Xswiftc -warnings-as-errors
# Every public type says whether it is Sendable. Checked on the library targets only, in a build folder of its own:
# SwiftPM's generated test runner has public classes of its own that would trip it.
SENDABLE_FLAGS := $(STRICT_FLAGS) -Xswiftc -Xfrontend -Xswiftc -require-explicit-sendable
SENDABLE_SCRATCH := .build-sendable
# What SwiftPM says of a dependency's own layout on every load of the package graph (swift-distributed-tracing 1.7.3
# leaves a file of its sources undeclared): not this project's warning, so the warning checks below skip it, anywhere in
# a line (the docs plugin's processes write at once, and it has been seen spliced after another line's text).
DEPENDENCY_LAYOUT_WARNING := warning: 'swift-distributed-tracing': found [0-9]* file(s) which are unhandled
# Every module a target imports is one it declares: SwiftPM's check (which accepts a module reached through any
# dependency) and Tools/scripts/check-declared-imports (which asks for the target's own declaration).
IMPORT_FLAGS   := --explicit-target-dependency-import-check error
# Every build of this package enables every integration's trait (OpenAPI, Tracing, Metrics, Lifecycle: Package.swift),
# so that the integrations and their tests are built and run; users enable only the ones they need. Every swift
# command below passes it: a build with another set of traits would compile the whole package again.
TRAITS         := --enable-all-traits
TSAN_SCRATCH   := .build-tsan
ASAN_SCRATCH   := .build-asan
FORMAT_PATHS   := Package.swift Modules Tests Integration Tools

.PHONY: setup setup-servers build platform-check test unit tsan sanitize lint format docs readme demo clean bench \
  bench-quick bench-build bench-setup bench-json bench-events fuzz fuzz-smoke fuzz-build install-check install

## setup: install the system packages the build needs (only those missing)
setup:
	@Tools/scripts/setup.sh

## setup-servers: nginx (Debian) and httpbin + gunicorn (PyPI, pinned) into .venv, for the integration suite
setup-servers:
	@Tools/scripts/setup-servers.sh

## build: compile every target, tests included, with warnings as errors and every imported module declared; the
## libraries also with explicit Sendable (first: the README's compiled examples must be up to date with README.md)
build: setup
	@Tools/scripts/readme-snippets --check
	@Tools/scripts/check-declared-imports
	@# -require-explicit-sendable only warns, and -warnings-as-errors does not promote that warning: fail on any
	@# warning the library build prints.
	@echo "$(SWIFT) build $(TRAITS) --scratch-path $(SENDABLE_SCRATCH) $(SENDABLE_FLAGS)"
	@$(SWIFT) build $(TRAITS) --scratch-path $(SENDABLE_SCRATCH) $(SENDABLE_FLAGS) > $(SENDABLE_SCRATCH).log 2>&1; \
	  status=$$?; cat $(SENDABLE_SCRATCH).log; \
	  if [ $$status -ne 0 ]; then exit $$status; fi; \
	  if grep -v "$(DEPENDENCY_LAYOUT_WARNING)" $(SENDABLE_SCRATCH).log | grep -q "warning:"; then \
	    echo "make build: the library build printed warnings"; exit 1; fi
	$(SWIFT) build $(TRAITS) --build-tests $(STRICT_FLAGS) $(IMPORT_FLAGS)

## platform-check: every Swift file of Modules/ and Tests/Support that uses libc imports it for Glibc, Musl and Darwin
## (CI builds on Linux only; see the script's header), the check's own tests first; then the facade type-checks
## without MalibuCurl, as on iOS, tvOS, watchOS and visionOS (needs `make build` first; `make test` runs it after)
platform-check:
	@Tools/scripts/check-platform-imports-test
	@Tools/scripts/check-platform-imports
	@Tools/scripts/check-facade-without-curl

## test: setup, strict build, the platform-import check, every module's documentation, every unit and integration
## test, the ThreadSanitizer run, a short run of every fuzz target, the README's install line and hello example, lint
test: setup-servers build platform-check docs unit tsan fuzz-smoke install-check lint

# Tests that measure the whole process (descriptors, threads, memory, wall-clock promptness) run alone, after the
# parallel pass: the integration suite (it starts its own servers on free loopback ports), the resource checks, and
# the integrations' tests that run real curl transports (their loop threads would count in CurlTests' thread checks).
# Also two tests that time a transfer against an in-process server: under ThreadSanitizer beside the parallel suite,
# that server was starved for seconds (an idle timeout mid-pause, a 60 s time limit), so they run alone.
SERIAL_TESTS   := MalibuIntegrationTests|MalibuLifecycleTests|MalibuTracingTests|MalibuMetricsTests|/Resources/|timeWhileWePausedForAReaderIsNotIdle|aCollectingCallerGetsWhatEndsABodyThatStops

## unit: every unit test in parallel, then the integration suite and the process-wide checks one at a time
unit:
	$(SWIFT) test $(TRAITS) --skip-build --skip '$(SERIAL_TESTS)'
	$(SWIFT) test $(TRAITS) --skip-build --no-parallel --filter '$(SERIAL_TESTS)'

# The whole suite under a sanitizer ($(1): thread or address), in a build folder of its own ($(2)), run as `unit`
# runs it, with the sanitizer's options ($(3), for TSAN_OPTIONS or ASAN_OPTIONS) and leaving out the tests named by
# $(4), if any. A sanitizer's report sets the test process's exit status, so any report fails the target. Reports are
# written to $(2)/reports (`log_path`) and printed after the run, so that they are the last thing a CI log shows.
define sanitized-suite
	$(SWIFT) build $(TRAITS) --build-tests --sanitize=$(1) --scratch-path $(2)
	@rm -rf $(2)/reports && mkdir -p $(2)/reports
	$(call sanitized-run,$(1),$(2),$(3),--skip '$(SERIAL_TESTS)$(if $(4),|$(4))')
	$(call sanitized-run,$(1),$(2),$(3),--no-parallel --filter '$(SERIAL_TESTS)' $(if $(4),--skip '$(4)'))
endef

# One `swift test` run of sanitized-suite ($(4): its filter), its reports printed at the end when it fails.
define sanitized-run
	@echo "$(SANITIZER_OPTIONS_$(1))=$(if $(3),$(3):)log_path=$(2)/reports/report $(SWIFT) test $(TRAITS) --skip-build \
	  --sanitize=$(1) --scratch-path $(2) $(4)"
	@$(SANITIZER_OPTIONS_$(1))=$(if $(3),$(3):)log_path=$(abspath $(2))/reports/report $(SWIFT) test $(TRAITS) --skip-build --sanitize=$(1) \
	  --scratch-path $(2) $(4); status=$$?; \
	  for report in $(2)/reports/report.*; do [ -f "$$report" ] && { echo "== $$report"; cat "$$report"; }; done; \
	  exit $$status
endef
SANITIZER_OPTIONS_thread  := TSAN_OPTIONS
SANITIZER_OPTIONS_address := ASAN_OPTIONS

## tsan: every unit and integration test under ThreadSanitizer (part of `make test`), with the runtime's one known
## false positive suppressed by its top frame (Tools/sanitizers/tsan-suppressions.txt says why)
tsan: setup setup-servers
	$(call sanitized-suite,thread,$(TSAN_SCRATCH),suppressions=$(abspath Tools/sanitizers/tsan-suppressions.txt))

## sanitize: every unit and integration test under AddressSanitizer (not part of `make test`): out-of-bounds
## accesses, use after free, double free. Leak detection is off: at exit LeakSanitizer lists what the test process
## keeps for its whole life (static fixtures, Foundation's and the runtime's caches) among real leaks; the Resources
## tests check descriptors, threads and memory instead. The tests that hold a transfer to a memory budget run in
## `make test` only: ASan's redzones and quarantine (kept at 8 MiB here) add to every allocation.
ASAN_SKIP := LargeTransferTests|largeFileUploadKeepsMemoryFlat
sanitize: setup setup-servers
	$(call sanitized-suite,address,$(ASAN_SCRATCH),detect_leaks=0:quarantine_size_mb=8,$(ASAN_SKIP))

## lint: swift format lint --strict over the whole tree
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)

## format: rewrite the tree in the house style
format:
	$(SWIFT) format --in-place --recursive --parallel $(FORMAT_PATHS)

## install-check: README's install block and hello example as a new user's package, built against a clone of HEAD
## tagged with CHANGELOG.md's version, run against a local server (scratch package in $(INSTALL_SCRATCH))
INSTALL_SCRATCH := .build-install
install-check: setup
	@INSTALL_SCRATCH=$(INSTALL_SCRATCH) Tools/scripts/install-check

# Documentation: DocC for every library module in one combined archive, with swift-docc-plugin, which the manifest
# adds only when MALIBU_DOCS is set (library users never fetch it), in a build folder of its own.
DOCS_SCRATCH   := .build-docs
DOCS_TARGETS   := MalibuPromises MalibuJSON MalibuCore MalibuEncoding MalibuValidation MalibuSerialization MalibuGzip \
  MalibuTransport MalibuCurl MalibuURLSession MalibuAuth MalibuLogging MalibuMocking MalibuStorage MalibuTypedRequests Malibu \
  MalibuOpenAPI MalibuTracing MalibuMetrics MalibuLifecycle \
  SurfCore

## docs: build the documentation of every module (.build-docs/plugins/Swift-DocC/outputs/Malibu.doccarchive);
## fails on any warning (a broken link, an unknown symbol, a malformed page)
docs: setup
	@echo "MALIBU_DOCS=1 $(SWIFT) package $(TRAITS) --scratch-path $(DOCS_SCRATCH) generate-documentation ..."
	@MALIBU_DOCS=1 $(SWIFT) package $(TRAITS) --scratch-path $(DOCS_SCRATCH) generate-documentation \
	  --enable-experimental-combined-documentation $(addprefix --target ,$(DOCS_TARGETS)) \
	  > $(DOCS_SCRATCH).log 2>&1; \
	  status=$$?; cat $(DOCS_SCRATCH).log; \
	  if [ $$status -ne 0 ]; then exit $$status; fi; \
	  if grep -v "$(DEPENDENCY_LAYOUT_WARNING)" $(DOCS_SCRATCH).log | grep -qE "(warning|error):"; then \
	    echo "make docs: the documentation build printed warnings"; exit 1; fi

## readme: regenerate Tests/ReadmeTests/README+Snippets.swift from README.md's Swift blocks
readme:
	@Tools/scripts/readme-snippets

## install: build `surf` (Tools/Surf) in release and copy it to $(PREFIX)/bin (PREFIX=/usr/local by default)
PREFIX ?= /usr/local
install: setup
	$(SWIFT) build -c release --product surf
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/surf" "$(DESTDIR)$(PREFIX)/bin/surf"

## demo: a tour of the library (Tools/Demo), then of `surf`, against a local httpbin that the script starts on a free
## port and stops
demo: setup setup-servers
	@Tools/scripts/demo.sh

# Benchmarks: a package of its own (Tools/Benchmarks), so library users never fetch its dependencies. The runner
# starts nginx on a free loopback port, generates the served files into $(BENCH_WORK) once, runs every contender x
# workload interleaved with repeats, prints the table and rewrites BENCHMARKS.md below its preamble.
BENCH_PACKAGE  := Tools/Benchmarks
BENCH_WORK     := .build-bench
PYTHON3        ?= python3

## bench: build the C baselines and the Swift clients (release), then run every benchmark (~30 min with the realistic
# api-mix and fan-out rows) into BENCHMARKS.md
bench: setup-servers bench-build
	$(PYTHON3) $(BENCH_PACKAGE)/Scripts/bench.py

## bench-json: only the Codable JSON rows (Foundation, MalibuJSON, Malibu's JSONParser DOM, simdjson; MB/s and
## instructions per byte under callgrind), written over their section of BENCHMARKS.md; no nginx, a few minutes
bench-json: bench-setup
	@mkdir -p $(BENCH_WORK)
	@rm -f $(BENCH_PACKAGE)/.build/release.yaml
	@rm -rf $(BENCH_PACKAGE)/.build/release/bench_json.build
	$(BENCH_SIMDJSON)
	$(SWIFT) build -c release --package-path $(BENCH_PACKAGE) --product bench-json
	$(PYTHON3) $(BENCH_PACKAGE)/Scripts/bench.py --json

## bench-events: only the events row (a recorded LLM-like event stream parsed by Malibu's ServerSentEventParser and
## ServerSentEvents and by swift-openapi-runtime's decoder; events/s and instructions per event under callgrind),
## written over its section of BENCHMARKS.md; no nginx, a few minutes
bench-events: bench-setup
	@mkdir -p $(BENCH_WORK)
	@rm -f $(BENCH_PACKAGE)/.build/release.yaml
	@rm -rf $(BENCH_PACKAGE)/.build/release/bench_events.build
	$(SWIFT) build -c release --package-path $(BENCH_PACKAGE) --product bench-events
	$(PYTHON3) $(BENCH_PACKAGE)/Scripts/bench.py --events

## bench-quick: the same with fewer requests and 2 repeats (BENCH_QUICK=1): a few minutes, figures indicative only
bench-quick:
	BENCH_QUICK=1 $(MAKE) bench

# The simdjson reference of the JSON rows: C++ on Debian's libsimdjson-dev.
BENCH_SIMDJSON := g++ -O2 -Wall -Wextra -std=c++17 -o $(BENCH_WORK)/bench-simdjson $(BENCH_PACKAGE)/C/bench_simdjson.cpp \
  $$(pkg-config --cflags --libs simdjson)

## bench-setup: what only the benchmarks need, besides `setup`'s packages (only those missing): simdjson (the JSON
## rows' reference), g++ to build it, valgrind (instructions per byte)
bench-setup:
	@Tools/scripts/setup.sh libsimdjson-dev g++ valgrind

## bench-build: the C baselines (gcc -O2, libcurl + zlib) and the Swift clients in release
# (MalibuBenchmarks is built by `swift package benchmark` itself, with its own flags: building it here too would only
# make the two builds undo each other.)
bench-build: bench-setup
	@mkdir -p $(BENCH_WORK)
	@# The nested package's build plan does not notice files added to or removed from the root package (a path
	@# dependency): drop the plan so it is made again (the compiled objects are kept).
	@rm -f $(BENCH_PACKAGE)/.build/release.yaml
	@# Nor does it always recompile its own targets when only @inlinable code they inline from Malibu changed
	@# (bench-client's objects were seen left at a build 90 minutes old): compile them afresh, and the ordo-one suite's.
	@rm -rf $(BENCH_PACKAGE)/.build/release/bench_client.build $(BENCH_PACKAGE)/.build/release/MalibuBenchmarks.build \
	  $(BENCH_PACKAGE)/.build/release/bench_json.build $(BENCH_PACKAGE)/.build/release/bench_events.build
	gcc -O2 -Wall -Wextra -o $(BENCH_WORK)/bench-c $(BENCH_PACKAGE)/C/bench_c.c $$(pkg-config --cflags --libs libcurl zlib)
	$(BENCH_SIMDJSON)
	$(SWIFT) build -c release --package-path $(BENCH_PACKAGE) --product bench-client
	$(SWIFT) build -c release --package-path $(BENCH_PACKAGE) --product bench-client-ahc
	$(SWIFT) build -c release --package-path $(BENCH_PACKAGE) --product bench-client-floor
	$(SWIFT) build -c release --package-path $(BENCH_PACKAGE) --product bench-json
	$(SWIFT) build -c release --package-path $(BENCH_PACKAGE) --product bench-events

# Fuzzing: libFuzzer targets for every parser that sees hostile bytes, in a package of their own (Tools/Fuzz), built
# in debug with -sanitize=fuzzer,address in a scratch folder of its own. One binary holds every target; run.sh runs
# them one at a time (MALIBU_FUZZ_TARGET picks one), reads the committed seeds in Tools/Fuzz/Corpus/<target>, keeps
# what it finds in $(FUZZ_SCRATCH)/work/<target>/corpus, and fails with the reproducer's path on any crash.
FUZZ_PACKAGE       := Tools/Fuzz
FUZZ_SCRATCH       := .build-fuzz
FUZZ_TARGETS       ?= gzip json json-codable response-head media-type url-form multipart stored-request redactor cassette
FUZZ_SECONDS       ?= 60
FUZZ_SMOKE_SECONDS ?= 10

## fuzz-build: the fuzz targets (debug, libFuzzer + AddressSanitizer)
fuzz-build: setup
	@# As for the benchmarks: the nested package's plan does not notice files added to the root package.
	@rm -f $(FUZZ_SCRATCH)/debug.yaml
	$(SWIFT) build --package-path $(FUZZ_PACKAGE) -c debug --scratch-path $(FUZZ_SCRATCH) \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library

## fuzz: every fuzz target for FUZZ_SECONDS each (60 by default), one after the other
fuzz: fuzz-build
	@$(FUZZ_PACKAGE)/Scripts/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

## fuzz-smoke: every fuzz target briefly (FUZZ_SMOKE_SECONDS, 10 by default), so that a regression fails CI
fuzz-smoke: fuzz-build
	@$(FUZZ_PACKAGE)/Scripts/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf .build $(SENDABLE_SCRATCH) $(DOCS_SCRATCH) $(TSAN_SCRATCH) $(ASAN_SCRATCH) $(BENCH_WORK) $(BENCH_PACKAGE)/.build \
	  $(FUZZ_SCRATCH) $(INSTALL_SCRATCH)
