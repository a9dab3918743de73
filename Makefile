# Thin wrapper around CMake: `make run` builds and runs the tour, `make test`
# builds and runs every test (a normal build, then the host code again under
# AddressSanitizer + UBSan), `make install` installs the program, the model
# library, its headers and cumemlab-model.pc under PREFIX (default
# /usr/local), staged under DESTDIR if given:
#   make install PREFIX=/usr/local DESTDIR=/tmp/stage
# Without nvcc, or with CMAKE_ARGS=-DCUMEMLAB_CUDA=OFF, everything but the GPU
# side builds (the model, the command line on the model alone, the CPU tests).
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
PREFIX     ?= /usr/local
DESTDIR    ?=

.PHONY: all build run test test-fast asan bench clean deps install

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	@./scripts/install-deps.sh
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/cumemlab

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(ASAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(ASAN_BUILD) -DCUMEMLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)

asan: $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -L cpu

test: test-fast asan

# The prefix is given at install time (the .pc file is written then), so
# one build installs anywhere. DESTDIR goes through the environment, where
# cmake --install reads it.
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

bench: build
	./$(BUILD)/bench_model

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
