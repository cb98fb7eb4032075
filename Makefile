# Thin wrapper over CMake + Ninja.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)

.PHONY: all setup build demo check test test-asan bench fuzz clean

all: build

setup:
	@scripts/setup.sh

build:
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The first README command: install what is missing, build, run the bundled example.
demo: setup build
	@scripts/demo.sh $(BUILD)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan:
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPREDATAR_SANITIZE=ON -DPREDATAR_BENCHMARKS=OFF >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

# The second README command (and CI): everything, plus the sanitizer build.
check: setup test test-asan

# libFuzzer harnesses (PTX parser, litmus reader, fat binary reader), built
# with clang in $(FUZZ_BUILD), each run for FUZZ_SECONDS; crashes land in
# $(FUZZ_BUILD)/artifacts.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 300
fuzz:
	@tests/fuzz/run_fuzz.sh . $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	@bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
