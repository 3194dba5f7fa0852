# pyverify: two commands.
#   make run    install missing packages, build, run the main job on the stdlib
#   make test   install missing packages, build, run every test
# Other targets: build, deps, corpus, bench, fuzz-smoke, fuzz-long, format,
# clean.

BUILD     ?= build
JOBS      ?= $(shell nproc)
PYTHON    ?= /usr/bin/python3.11
CMAKE_FLAGS ?=
# CI (.ci/run sets CI=true) keeps line tables only in its debug info: its
# build is a third of make test's time on 2 cores, and full -g costs a
# fifth of each compile (measured: SymbolicFrame.cpp 5.8 s -> 4.6 s).
# It also compiles the libraries and unit tests in batches
# (PYVERIFY_UNITY_BUILD; so does its fuzz build): a fresh build parses each
# header once per batch.
ifeq ($(CI),true)
CMAKE_FLAGS += "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
CMAKE_FLAGS += -DPYVERIFY_UNITY_BUILD=ON
FUZZ_CMAKE_FLAGS += -DPYVERIFY_UNITY_BUILD=ON
endif
PYVERIFY  := $(BUILD)/tools/pyverify/pyverify
STDLIB_PYC := $(BUILD)/corpus/stdlib
FIXTURE_BUNDLES := $(BUILD)/bundles/fixtures

.PHONY: all deps configure build run test corpus bench fuzz-smoke fuzz-long fuzz-build format clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# Compiles /usr/lib/python3.11 into the build tree (never under /usr).
corpus: build
	$(PYTHON) tests/corpus/compile_corpus.py /usr/lib/python3.11 $(STDLIB_PYC)

run: corpus
	@echo "== pyverify stats over the CPython 3.11 standard library =="
	$(PYVERIFY) stats $(STDLIB_PYC)
	@echo "== pyverify prove over the rewriter's fixture bundles =="
	@rm -rf $(FIXTURE_BUNDLES); \
	PYTHONPATH=python $(PYTHON) -m pyverify_rewriter gen-fixtures \
	  $(FIXTURE_BUNDLES) >/dev/null || exit $$?; \
	$(PYVERIFY) prove --format=json --jobs=$(JOBS) $(FIXTURE_BUNDLES) \
	  > $(BUILD)/bundles/prove-fixtures.json; rc=$$?; \
	if [ $$rc -ne 0 ] && [ $$rc -ne 1 ] && [ $$rc -ne 3 ]; then \
	  echo "pyverify prove failed (exit $$rc)"; exit $$rc; fi; \
	$(PYTHON) tests/prove/summarize.py $(BUILD)/bundles/prove-fixtures.json

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# BENCH_FLAGS: e.g. --quick, --no-callgrind, --no-linear, --prove-stdlib.
BENCH_FLAGS ?=
bench: build
	$(PYTHON) benchmarks/run_benchmarks.py --build $(BUILD) $(BENCH_FLAGS)

fuzz-build: deps
	cmake -S . -B $(BUILD)-fuzz -G Ninja -DCMAKE_C_COMPILER=clang-14 \
	  -DCMAKE_CXX_COMPILER=clang++-14 -DPYVERIFY_BUILD_FUZZERS=ON \
	  -DPYVERIFY_BUILD_TESTS=OFF -DPYVERIFY_BUILD_BENCHMARKS=OFF \
	  -DPYVERIFY_BUILD_PYTHON=OFF \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
	  -DPython3_EXECUTABLE=$(PYTHON) $(FUZZ_CMAKE_FLAGS)
	cmake --build $(BUILD)-fuzz -j $(JOBS) --target pyverify-fuzzers

FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
fuzz-smoke: fuzz-build
	$(PYTHON) tests/fuzz/run_fuzz_smoke.py --build $(BUILD)-fuzz --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS)

# Every target for FUZZ_LONG_SECONDS each, going on past findings (libFuzzer
# fork mode): runs, exec/s and findings per target.
FUZZ_LONG_SECONDS ?= 300
fuzz-long: fuzz-build
	$(PYTHON) tests/fuzz/run_fuzz_smoke.py --build $(BUILD)-fuzz --seconds $(FUZZ_LONG_SECONDS) --keep-going

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD)-fuzz
