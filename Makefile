# Vitrine: build, run, test and install on Debian. `make run` and `make test` install any
# missing system packages first (apt-get; sudo when not root).

PREFIX ?= /usr/local
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Build: ncursesw, libvips and libcurl headers, libjpeg-turbo, libpng and LittleCMS (the JPEG/PNG
# hot path), libsixel and libpng for the pixel presenters; run: the direct-colour terminfo
# entries (xterm-direct, tmux-direct). Tests: tmux and Python for the end-to-end suite, real
# photos and flags, nginx and openssl for https and HTTP/2; ImageMagick, Xvfb, xterm, kitty and
# their fonts for the real-terminal pixel tests (sixel decoding and screenshots).
BUILD_PACKAGES = pkg-config libncurses-dev ncurses-term libvips-dev libcurl4-openssl-dev libjpeg62-turbo-dev liblcms2-dev libsixel-dev libpng-dev zlib1g-dev
TEST_PACKAGES = tmux python3 python3-pil mate-backgrounds famfamfam-flag-png nginx openssl imagemagick xvfb xterm kitty xfonts-base fonts-dejavu-core

.PHONY: all deps test-deps build run test unit-test e2e-test fuzz asan-test tsan-test install uninstall demo clean

all: build

deps:
	@missing=$$(for p in $(BUILD_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

test-deps: deps
	@missing=$$(for p in $(TEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing test packages:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# The release binary carries the Swift runtime and Foundation inside it (--static-swift-stdlib):
# every start then skips loading and relocating 15 Swift shared objects (docs/PERFORMANCE.md,
# "Render speed"). Scripts that build the release binary use the same flags, so SwiftPM does not
# rebuild everything when one of them runs after `make build`.
RELEASE_FLAGS = -c release --static-swift-stdlib

build: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product vitrine

run: build
	.build/release/vitrine

# The whole suite: unit tests (swift test), then the release binary end to end in tmux, then
# the libFuzzer targets for FUZZ_SECONDS each (Fuzz/run.sh; about 1.5 min of building).
FUZZ_SECONDS ?= 30

# Unit tests run one at a time (--no-parallel: 30 s against 22 s here): run side by side on two
# cores, tests that block a thread on a semaphore and tests that polled with sleeps (an `eventually` helper, since gone) starved
# each other, and the suite timed out or stalled under load.
test: test-deps build
	$(SWIFT) test --no-parallel
	python3 Tests/EndToEnd/run.py
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh
	$(MAKE) asan-test tsan-test

# libFuzzer with AddressSanitizer over the parsers that read untrusted bytes (Fuzz/README.md).
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh

# The whole unit suite under AddressSanitizer, then under ThreadSanitizer (both run by `make
# test`), each in its own build folder: a full debug build each, measured in README.md. One test
# at a time (--no-parallel), as in `make test`. A sanitizer report fails the run: ASan stops at
# the first error, TSan exits 66 after any warning. Nothing of Vitrine's is suppressed.
# LeakSanitizer runs at the end of the ASan run and fails it on any leak; Tests/Sanitizers/lsan.supp
# lists frames of the toolchain's libraries only (XCTest, Foundation, the Swift runtime's weak
# references), each with its reason.
SANITIZER_ENV = SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Sanitizers/lsan.supp

asan-test: deps
	ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1} $(SANITIZER_ENV) \
	  $(SWIFT) test --no-parallel --sanitize=address --scratch-path .build/asan

tsan-test: deps
	$(SANITIZER_ENV) $(SWIFT) test --no-parallel --sanitize=thread --scratch-path .build/tsan

unit-test: deps
	$(SWIFT) test --no-parallel

e2e-test: test-deps build
	python3 Tests/EndToEnd/run.py

# Regenerates Resources/demo from scripts/make-demo.py (the output is committed).
demo:
	python3 scripts/make-demo.py

install: build
	install -D -m 755 .build/release/vitrine $(DESTDIR)$(PREFIX)/bin/vitrine
	mkdir -p $(DESTDIR)$(PREFIX)/share/vitrine
	rm -rf $(DESTDIR)$(PREFIX)/share/vitrine/demo
	cp -R Resources/demo $(DESTDIR)$(PREFIX)/share/vitrine/demo
	install -D -m 644 docs/vitrine.1 $(DESTDIR)$(PREFIX)/share/man/man1/vitrine.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/vitrine $(DESTDIR)$(PREFIX)/share/man/man1/vitrine.1
	rm -rf $(DESTDIR)$(PREFIX)/share/vitrine

clean:
	rm -rf .build
