# SPDX-License-Identifier: LGPL-2.1-or-later
# guided-access: build, install and uninstall.
#
#   make build                          release build of guided-accessd and guided-access (Swift runtime linked
#                                       in), their man pages and shell completions
#   make install [PREFIX=/usr/local] [DESTDIR=/tmp/stage]
#   make uninstall [PREFIX=...] [DESTDIR=...]
#   make test                           = scripts/test (installs deps, builds, runs all tests)
#   make run                            = scripts/run-daemon (daemon in the foreground)
#
# `make install` does not build: run `make build` first (as your user), then
# `sudo make install`.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# The daemon is started by D-Bus activation, not by people: it is not on PATH.
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
DOCDIR ?= $(DATADIR)/doc/guided-access
MANDIR ?= $(DATADIR)/man
BASH_COMPLETIONS_DIR ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETIONS_DIR ?= $(DATADIR)/zsh/vendor-completions
FISH_COMPLETIONS_DIR ?= $(DATADIR)/fish/vendor_completions.d
DESTDIR ?=

SWIFT ?= swift
# SwiftPM's scratch directory; the release binaries are in $(SCRATCH)/release.
SCRATCH ?= .build
# libstdc++.a alone, for the link to find before the shared library (see below).
STATIC_CXX_DIR = $(abspath $(SCRATCH))/static-libstdc++
# The Swift runtime is linked into the binaries, so they run on machines
# without a Swift toolchain (and the daemon starts smaller). The toolchain's
# lld packs the relative relocations (DT_RELR, glibc >= 2.36) and exports no
# symbols: the loader then touches 1.9 MB less of the daemon at start.
# Every function gets a section of its own, and lld lays out those the
# daemon runs to start first (scripts/hot-functions.order, written by
# scripts/order-functions): the kernel maps code in 64 KB runs around each
# page touched, so start-up code spread over the binary made most of it
# resident (2.9 MB more). The runtime's C++ library is linked in from
# libstdc++.a, so only the parts it uses are loaded (0.8 MB less than
# libstdc++.so); without libstdc++.a the link takes the shared library.
SWIFT_FLAGS ?= --static-swift-stdlib -Xswiftc -use-ld=lld \
    -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
    -Xswiftc -Xfrontend -Xswiftc -function-sections \
    -Xlinker --symbol-ordering-file=$(CURDIR)/scripts/hot-functions.order -Xlinker --no-warn-symbol-ordering \
    -Xlinker -L$(STATIC_CXX_DIR)
BUILD_BIN = $(SCRATCH)/release
# Man pages and completions, generated from the argument-parser definitions.
GENERATED = $(BUILD_BIN)/generated
# The date in the man pages: SOURCE_DATE_EPOCH's when set, for reproducible builds.
MAN_DATE ?= $(shell date -u -d "@$${SOURCE_DATE_EPOCH:-$$(date +%s)}" +%Y-%m-%d)

# The session bus reads activation files from this directory (from dbus-1.pc,
# normally /usr/share/dbus-1/services) whatever PREFIX is. With another PREFIX
# the file still goes here, and its Exec= line points into $(BINDIR).
DBUS_SERVICES_DIR ?= $(or $(shell pkg-config --variable=session_bus_services_dir dbus-1 2>/dev/null),/usr/share/dbus-1/services)
# Interface XML for code generators (gdbus-codegen, zbus-xmlgen), from dbus-1.pc.
DBUS_INTERFACES_DIR ?= $(or $(shell pkg-config --variable=interfaces_dir dbus-1 2>/dev/null),/usr/share/dbus-1/interfaces)
# systemd user units (from systemd.pc when available, normally /usr/lib/systemd/user).
SYSTEMD_USER_UNIT_DIR ?= $(or $(shell pkg-config --variable=systemduserunitdir systemd 2>/dev/null),$(PREFIX)/lib/systemd/user)
# polkitd reads actions only from /usr/share/polkit-1/actions, whatever PREFIX is.
POLKIT_ACTIONS_DIR ?= /usr/share/polkit-1/actions

# The GNOME Shell extension that enforces the session on screen. Its entry
# point depends on the shell's major version (43/44 legacy, 45+ ES module):
# the installed gnome-shell's, else Debian 12's 43.
SHELL_EXTENSIONS_DIR ?= /usr/share/gnome-shell/extensions
GNOME_SHELL_VERSION ?= $(or $(shell gnome-shell --version 2>/dev/null | sed -n 's/^GNOME Shell \([0-9]*\).*/\1/p'),43)
# The KWin script that enforces the session on KDE Plasma goes into
# $(KWIN_SCRIPTS_DATADIR)/kwin/scripts/guidedaccess: KWin looks for scripts in
# kwin/scripts/ of each XDG data directory, so like the extension it goes
# under /usr/share whatever PREFIX is. It is enabled by default.
KWIN_SCRIPTS_DATADIR ?= /usr/share
# The Cinnamon extension goes where Cinnamon looks for the system's
# extensions; a person enables it in Cinnamon's Extensions settings (or the
# administrator in org.cinnamon enabled-extensions).
CINNAMON_EXTENSIONS_DIR ?= /usr/share/cinnamon/extensions

INSTALL ?= install

.PHONY: all build generated install uninstall deb test run swift-flags gnome-shell-version

all: build

build: $(STATIC_CXX_DIR)
	$(SWIFT) build -c release --scratch-path $(SCRATCH) $(SWIFT_FLAGS) --product guided-accessd
	$(SWIFT) build -c release --scratch-path $(SCRATCH) $(SWIFT_FLAGS) --product guided-access
	$(SWIFT) build -c release --scratch-path $(SCRATCH) $(SWIFT_FLAGS) --product generate-manual
	$(MAKE) --no-print-directory generated

# The CLI's page and completions are written from the same definitions that
# parse its options; the daemon's page (it parses its own few) is docs/guided-accessd.8.
generated:
	mkdir -p "$(GENERATED)/man" "$(GENERATED)/completions"
	"$(BUILD_BIN)/generate-manual" "$(BUILD_BIN)/guided-access" --section 1 --date $(MAN_DATE) -o "$(GENERATED)/man"
	sed 's/@DATE@/$(MAN_DATE)/' docs/guided-accessd.8 > "$(GENERATED)/man/guided-accessd.8"
	# mdoc wants no blank lines (groff warns of each); a sourced completion needs no #! line.
	sed -i '/^$$/d' "$(GENERATED)/man/guided-access.1"
	"$(BUILD_BIN)/guided-access" --generate-completion-script bash | sed '1{/^#!/d}' > "$(GENERATED)/completions/guided-access"
	"$(BUILD_BIN)/guided-access" --generate-completion-script zsh > "$(GENERATED)/completions/_guided-access"
	"$(BUILD_BIN)/guided-access" --generate-completion-script fish > "$(GENERATED)/completions/guided-access.fish"

# The flags of a release build, for scripts that build the same way.
swift-flags: $(STATIC_CXX_DIR)
	@echo $(SWIFT_FLAGS)

# The link searches its -L directories before the compiler's own, where
# libstdc++.so is: a directory holding only libstdc++.a makes `-lstdc++` static.
$(STATIC_CXX_DIR):
	@mkdir -p "$@"
	@archive="$$($(CC) -print-file-name=libstdc++.a 2>/dev/null)"; \
	if [ -f "$$archive" ]; then ln -sf "$$archive" "$@/libstdc++.a"; fi

install:
	@for binary in guided-accessd guided-access; do \
	    if [ ! -x "$(BUILD_BIN)/$$binary" ]; then \
	        echo "make install: $(BUILD_BIN)/$$binary does not exist; run 'make build' first." >&2; \
	        exit 1; \
	    fi; \
	done
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBEXECDIR)" "$(DESTDIR)$(DBUS_SERVICES_DIR)" \
	    "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)" "$(DESTDIR)$(POLKIT_ACTIONS_DIR)" "$(DESTDIR)$(DBUS_INTERFACES_DIR)" \
	    "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man8" \
	    "$(DESTDIR)$(BASH_COMPLETIONS_DIR)" "$(DESTDIR)$(ZSH_COMPLETIONS_DIR)" "$(DESTDIR)$(FISH_COMPLETIONS_DIR)"
	$(INSTALL) -m 0755 "$(BUILD_BIN)/guided-accessd" "$(DESTDIR)$(LIBEXECDIR)/guided-accessd"
	$(INSTALL) -m 0755 "$(BUILD_BIN)/guided-access" "$(DESTDIR)$(BINDIR)/guided-access"
	sed 's|@libexecdir@|$(LIBEXECDIR)|g' dbus/org.guidedaccess.GuidedAccess1.service \
	    > "$(DESTDIR)$(DBUS_SERVICES_DIR)/org.guidedaccess.GuidedAccess1.service"
	chmod 0644 "$(DESTDIR)$(DBUS_SERVICES_DIR)/org.guidedaccess.GuidedAccess1.service"
	sed 's|@libexecdir@|$(LIBEXECDIR)|g' dbus/guided-accessd.service \
	    > "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/guided-accessd.service"
	chmod 0644 "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/guided-accessd.service"
	$(INSTALL) -m 0644 polkit/org.guidedaccess.policy "$(DESTDIR)$(POLKIT_ACTIONS_DIR)/org.guidedaccess.policy"
	$(INSTALL) -m 0644 dbus/org.guidedaccess.*.xml "$(DESTDIR)$(DBUS_INTERFACES_DIR)/"
	$(INSTALL) -m 0644 "$(GENERATED)/man/guided-access.1" "$(DESTDIR)$(MANDIR)/man1/guided-access.1"
	$(INSTALL) -m 0644 "$(GENERATED)/man/guided-accessd.8" "$(DESTDIR)$(MANDIR)/man8/guided-accessd.8"
	$(INSTALL) -m 0644 "$(GENERATED)/completions/guided-access" "$(DESTDIR)$(BASH_COMPLETIONS_DIR)/guided-access"
	$(INSTALL) -m 0644 "$(GENERATED)/completions/_guided-access" "$(DESTDIR)$(ZSH_COMPLETIONS_DIR)/_guided-access"
	$(INSTALL) -m 0644 "$(GENERATED)/completions/guided-access.fish" "$(DESTDIR)$(FISH_COMPLETIONS_DIR)/guided-access.fish"
	$(INSTALL) -m 0644 polkit/50-guided-access-example.rules "$(DESTDIR)$(DOCDIR)/examples/50-guided-access-example.rules"
	$(INSTALL) -m 0644 docs/examples/managed.json "$(DESTDIR)$(DOCDIR)/examples/managed.json"
	$(INSTALL) -m 0644 Examples/qt/guidedaccesstypes.h "$(DESTDIR)$(DOCDIR)/examples/guidedaccesstypes.h"
	shell/gnome/install "$(DESTDIR)$(SHELL_EXTENSIONS_DIR)" $(GNOME_SHELL_VERSION)
	DESTDIR="$(DESTDIR)" shell/kde/install "$(KWIN_SCRIPTS_DATADIR)"
	shell/cinnamon/install "$(DESTDIR)$(CINNAMON_EXTENSIONS_DIR)"
	@echo "Installed. Users pick up the new service with: systemctl --user daemon-reload"
	@echo "(the session bus rereads activation files by itself; the first call starts guided-accessd)."

uninstall:
	rm -f "$(DESTDIR)$(LIBEXECDIR)/guided-accessd" "$(DESTDIR)$(BINDIR)/guided-access" \
	    "$(DESTDIR)$(DBUS_SERVICES_DIR)/org.guidedaccess.GuidedAccess1.service" \
	    "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/guided-accessd.service" \
	    "$(DESTDIR)$(POLKIT_ACTIONS_DIR)/org.guidedaccess.policy" \
	    "$(DESTDIR)$(DBUS_INTERFACES_DIR)"/org.guidedaccess.*.xml \
	    "$(DESTDIR)$(MANDIR)/man1/guided-access.1" "$(DESTDIR)$(MANDIR)/man8/guided-accessd.8" \
	    "$(DESTDIR)$(BASH_COMPLETIONS_DIR)/guided-access" "$(DESTDIR)$(ZSH_COMPLETIONS_DIR)/_guided-access" \
	    "$(DESTDIR)$(FISH_COMPLETIONS_DIR)/guided-access.fish" \
	    "$(DESTDIR)$(DOCDIR)/examples/50-guided-access-example.rules" "$(DESTDIR)$(DOCDIR)/examples/managed.json" \
	    "$(DESTDIR)$(DOCDIR)/examples/guidedaccesstypes.h"
	rm -rf "$(DESTDIR)$(SHELL_EXTENSIONS_DIR)/guided-access@guidedaccess.org"
	rm -rf "$(DESTDIR)$(KWIN_SCRIPTS_DATADIR)/kwin/scripts/guidedaccess"
	rm -rf "$(DESTDIR)$(CINNAMON_EXTENSIONS_DIR)/guided-access@guidedaccess.org"
	-rmdir "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(DOCDIR)" 2>/dev/null

# The Debian package (debian/, debhelper): ../guided-access_VERSION_ARCH.deb,
# beside the source directory as dpkg-buildpackage writes it.
# The package's extension entry points are those of GNOME_SHELL_VERSION
# (see debian/rules): `make deb GNOME_SHELL_VERSION=48` on Debian 12 builds
# the package for GNOME 45-50 (Debian 13, testing, Ubuntu 24.04 and later).
deb:
	GNOME_SHELL_VERSION=$(GNOME_SHELL_VERSION) dpkg-buildpackage -us -uc -b

# The GNOME Shell major version an install is for (debian/rules asks).
gnome-shell-version:
	@echo $(GNOME_SHELL_VERSION)

test:
	scripts/test

run:
	scripts/run-daemon
