# photoedit: `make demo` and `make test` work from a fresh clone on Debian 12 with Swift at /opt/swift.
export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
SWIFT ?= swift
# Debian packages the build, the tests and the demo need (parallel and ssh: the "Many machines"
# recipe runs over ssh in the tests).
APT_PACKAGES := pkg-config libturbojpeg0-dev libjpeg62-turbo-dev libpng-dev libssl-dev zlib1g-dev opencv-data \
  parallel openssh-server openssh-client
RELEASE_FLAGS := -c release --static-swift-stdlib
BIN := .build/release/photoedit

.PHONY: all deps build test demo install bench fuzz format clean

all: build

# Installs whatever Debian package is missing (needs root or sudo).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product photoedit

# The whole suite, in release mode (face detection on full-size photos is slow in debug).
test: deps
	$(SWIFT) build -c release -Xswiftc -enable-testing --build-tests
	$(SWIFT) test -c release -Xswiftc -enable-testing --skip-build

demo: build
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

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/photoedit

# `make bench` measures photoedit against the codec floor, ImageMagick, libvips and OpenCV and
# writes BENCHMARKS.md (the README's "Speed" section). `make bench QUICK=1`: fewer runs, under two minutes.
# Its tools (apt and a Python venv in .build/bench/venv) are installed by setup.sh when missing.
# A failed build does not stop it: photoedit's cases then say "failed".
BENCH_FLAGS := $(if $(filter-out 0,$(QUICK)),--quick,)

# Mutated copies of the fixtures through the release binary; any crash or hang is a finding.
# `make fuzz COUNT=5000 SEED=7` for a longer or another run.
fuzz: build
	python3 Tests/Fuzz/mutate.py --count $(or $(COUNT),1000) --seed $(or $(SEED),1)

bench:
	@Tests/Benchmarks/setup.sh
	@$(MAKE) --no-print-directory build || echo "bench: the build failed; photoedit's cases will say so" >&2
	python3 Tests/Benchmarks/bench.py $(BENCH_FLAGS)

# Formats every Swift file with the committed .swift-format.
format:
	$(SWIFT) format -i -r --configuration .swift-format Sources Tests Package.swift

clean:
	rm -rf .build demo-output
