# make run: install what is missing, build a release xpb, and do a copy/paste round trip
#           on $DISPLAY (or on a private Xvfb when there is no display).
# make test: the whole test suite (tests start their own Xvfb).
# make sanitize: the X11Pasteboard tests under AddressSanitizer (with LeakSanitizer) and under
#                ThreadSanitizer, built in .build-asan and .build-tsan; fails on any sanitizer
#                report, from the tests or from the xpb they start (scripts/sanitize.sh).
# make bench: xpb against xclip and xsel, side by side; then sync and bridge (against autocutsel).
# make install / uninstall (PREFIX=/usr/local DESTDIR=): xpb, pbcopy, pbpaste, the xclip and xsel
#                drop-ins in $(PREFIX)/lib/xpb/compat, man pages, completions (scripts/install.sh).
# make deb: a Debian package of the same install (scripts/deb.sh), in .build/deb.
# make docs: DocC for X11Pasteboard and UniformTypes, in .build/docs.

.PHONY: run deps build release test sanitize bench clean install uninstall deb docs

PREFIX ?= /usr/local
DESTDIR ?=
# XPB_BIN=path installs (or packages) that binary instead of building a release one.
XPB_BIN ?=

run: deps release
	@if [ -n "$$DISPLAY" ] && xdpyinfo >/dev/null 2>&1; then scripts/demo.sh; else scripts/with-xvfb.sh scripts/demo.sh; fi

deps:
	@scripts/install-deps.sh

build:
	swift build

# A fully static xpb: the dynamic loader's relocations were two thirds of a small paste's
# start-up. Debian ships static X libraries; libbsd and libmd are libXdmcp's dependencies.
# The linker warns that getaddrinfo in a static binary needs this glibc's NSS modules at run
# time: true for a binary built where it runs, and only TCP displays (host:0) use it.
STATIC = -Xswiftc -static-executable $(foreach l,xcb Xau Xdmcp bsd md,-Xlinker -l$(l))

# The glibc warnings about getaddrinfo and friends in a static binary are the explained ones
# above; filtered here so that a first `make run` shows only what needs attention.
release:
	@scripts/quiet-static-warnings.sh swift build -c release $(STATIC)

# generate-manual (ArgumentParser's, for the man pages) is built first: the install tests use it.
# The tests start Xvfb servers, Qt, GTK, sshd and many short processes: run at most
# $(TEST_WIDTH) at once, so that on two cores no test's timeout is eaten by the others.
TEST_WIDTH ?= 3

test: deps
	swift build --product generate-manual
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) swift test

sanitize: deps
	scripts/sanitize.sh

bench: deps release
	python3 bench/run.py
	python3 bench/sync.py

install: $(if $(XPB_BIN),,release)
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" XPB_BIN="$(or $(XPB_BIN),.build/release/xpb)" scripts/install.sh install

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh uninstall

deb: $(if $(XPB_BIN),,release)
	XPB_BIN="$(or $(XPB_BIN),.build/release/xpb)" scripts/deb.sh

docs:
	scripts/docs.sh

clean:
	rm -rf .build .build-asan .build-tsan
