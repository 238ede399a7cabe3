# guided-access: build, install and uninstall.
#
#   make build                          release build of guided-accessd and guided-access (Swift runtime linked in)
#   make install [PREFIX=/usr/local] [DESTDIR=/tmp/stage]
#   make uninstall [PREFIX=...] [DESTDIR=...]
#   make test                           = scripts/test (installs deps, builds, runs all tests)
#   make run                            = scripts/run-daemon (daemon in the foreground)
#
# `make install` does not build: run `make build` first (as your user), then
# `sudo make install`.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DOCDIR ?= $(PREFIX)/share/doc/guided-access
DESTDIR ?=

SWIFT ?= swift
# The Swift runtime is linked into the binaries, so they run on machines
# without a Swift toolchain (and the daemon starts smaller). The toolchain's
# lld packs the relative relocations (DT_RELR, glibc >= 2.36) and exports no
# symbols: the loader then touches 1.9 MB less of the daemon at start.
SWIFT_FLAGS ?= --static-swift-stdlib -Xswiftc -use-ld=lld \
    -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
# SwiftPM's scratch directory; the release binaries are in $(SCRATCH)/release.
SCRATCH ?= .build
BUILD_BIN = $(SCRATCH)/release

# The session bus reads activation files from this directory (from dbus-1.pc,
# normally /usr/share/dbus-1/services) whatever PREFIX is. With another PREFIX
# the file still goes here, and its Exec= line points into $(BINDIR).
DBUS_SERVICES_DIR ?= $(or $(shell pkg-config --variable=session_bus_services_dir dbus-1 2>/dev/null),/usr/share/dbus-1/services)
# systemd user units (from systemd.pc when available, normally /usr/lib/systemd/user).
SYSTEMD_USER_UNIT_DIR ?= $(or $(shell pkg-config --variable=systemduserunitdir systemd 2>/dev/null),$(PREFIX)/lib/systemd/user)
# polkitd reads actions only from /usr/share/polkit-1/actions, whatever PREFIX is.
POLKIT_ACTIONS_DIR ?= /usr/share/polkit-1/actions

# The GNOME Shell extension that enforces the session on screen. Its entry
# point depends on the shell's major version (43/44 legacy, 45+ ES module):
# the installed gnome-shell's, else Debian 12's 43.
SHELL_EXTENSIONS_DIR ?= /usr/share/gnome-shell/extensions
GNOME_SHELL_VERSION ?= $(or $(shell gnome-shell --version 2>/dev/null | sed -n 's/^GNOME Shell \([0-9]*\).*/\1/p'),43)

INSTALL ?= install

.PHONY: all build install uninstall test run swift-flags

all: build

build:
	$(SWIFT) build -c release --scratch-path $(SCRATCH) $(SWIFT_FLAGS) --product guided-accessd
	$(SWIFT) build -c release --scratch-path $(SCRATCH) $(SWIFT_FLAGS) --product guided-access

# The flags of a release build, for scripts that build the same way.
swift-flags:
	@echo $(SWIFT_FLAGS)

install:
	@for binary in guided-accessd guided-access; do \
	    if [ ! -x "$(BUILD_BIN)/$$binary" ]; then \
	        echo "make install: $(BUILD_BIN)/$$binary does not exist; run 'make build' first." >&2; \
	        exit 1; \
	    fi; \
	done
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(DBUS_SERVICES_DIR)" \
	    "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)" "$(DESTDIR)$(POLKIT_ACTIONS_DIR)" \
	    "$(DESTDIR)$(DOCDIR)/examples"
	$(INSTALL) -m 0755 "$(BUILD_BIN)/guided-accessd" "$(DESTDIR)$(BINDIR)/guided-accessd"
	$(INSTALL) -m 0755 "$(BUILD_BIN)/guided-access" "$(DESTDIR)$(BINDIR)/guided-access"
	sed 's|@bindir@|$(BINDIR)|g' dbus/org.guidedaccess.GuidedAccess1.service \
	    > "$(DESTDIR)$(DBUS_SERVICES_DIR)/org.guidedaccess.GuidedAccess1.service"
	chmod 0644 "$(DESTDIR)$(DBUS_SERVICES_DIR)/org.guidedaccess.GuidedAccess1.service"
	sed 's|@bindir@|$(BINDIR)|g' dbus/guided-accessd.service \
	    > "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/guided-accessd.service"
	chmod 0644 "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/guided-accessd.service"
	$(INSTALL) -m 0644 polkit/org.guidedaccess.policy "$(DESTDIR)$(POLKIT_ACTIONS_DIR)/org.guidedaccess.policy"
	$(INSTALL) -m 0644 polkit/50-guided-access-example.rules "$(DESTDIR)$(DOCDIR)/examples/50-guided-access-example.rules"
	shell/gnome/install "$(DESTDIR)$(SHELL_EXTENSIONS_DIR)" $(GNOME_SHELL_VERSION)
	@echo "Installed. Users pick up the new service with: systemctl --user daemon-reload"
	@echo "(the session bus rereads activation files by itself; the first call starts guided-accessd)."

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/guided-accessd" "$(DESTDIR)$(BINDIR)/guided-access" \
	    "$(DESTDIR)$(DBUS_SERVICES_DIR)/org.guidedaccess.GuidedAccess1.service" \
	    "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/guided-accessd.service" \
	    "$(DESTDIR)$(POLKIT_ACTIONS_DIR)/org.guidedaccess.policy" \
	    "$(DESTDIR)$(DOCDIR)/examples/50-guided-access-example.rules"
	rm -rf "$(DESTDIR)$(SHELL_EXTENSIONS_DIR)/guided-access@guidedaccess.org"
	-rmdir "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(DOCDIR)" 2>/dev/null

test:
	scripts/test

run:
	scripts/run-daemon
