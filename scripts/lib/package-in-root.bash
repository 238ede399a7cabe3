#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Inside a root of scripts/desktop-root (a copy: this installs into it), as
# root: installs the package DEB as a person would (apt install ./DEB), then
# as nobody, in a fresh session bus: the CLI starts the daemon through the
# installed activation file, and a headless gnome-shell loads the installed
# extension, which registers with the daemon as its enforcer. Called by
# scripts/test-package; prints one "ok" or "FAILED" line per check.
#
#   scripts/lib/package-in-root.bash DEB
set -uo pipefail
deb=$1
failed=0
report() {  # report STATUS DESCRIPTION [DETAIL]
    if [[ $1 -eq 0 ]]; then echo "ok     $2"; else echo "FAILED $2${3:+: $3}"; failed=1; fi
}

export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/tmp/apt.log 2>&1
apt-get install -y -q --no-install-recommends "$deb" >>/tmp/apt.log 2>&1
status=$?
report $status "apt install ./$(basename "$deb")" "$(tail -n 3 /tmp/apt.log)"
[[ $status -eq 0 ]] || exit 1

home=$(mktemp -d /tmp/package-home.XXXXXX)
mkdir -p /tmp/.X11-unix && chmod 1777 /tmp/.X11-unix
chown 65534:65534 "$home"
# A system bus of its own (gnome-shell does not start without one), open to
# everyone, as a desktop's is to its user.
source "$(dirname "${BASH_SOURCE[0]}")/system-bus-config.bash"
system_bus_config /tmp/system_bus_socket > /tmp/system.conf
dbus-daemon --config-file=/tmp/system.conf --fork --print-pid=3 3>/tmp/system-bus.pid
# As nobody, in its own session bus: the daemon, the shell and dconf are all
# bus-activated or started from the installed files.
setpriv --reuid 65534 --regid 65534 --clear-groups env -i PATH=/usr/bin:/bin HOME="$home" USER=nobody \
    LANG=C.UTF-8 XDG_RUNTIME_DIR="$home" XDG_SESSION_TYPE=wayland NO_AT_BRIDGE=1 \
    DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/system_bus_socket \
    dbus-run-session -- bash -c '
        uuid=guided-access@guidedaccess.org
        check() { if eval "$2" >"$HOME/out" 2>&1; then echo "ok     $1"; else echo "FAILED $1: $(tail -n 2 "$HOME/out")"; return 1; fi; }
        check "guided-access status activates /usr/libexec/guided-accessd" \
            "guided-access status && busctl --user status org.guidedaccess.GuidedAccess1 | grep -q Exe=/usr/libexec/guided-accessd"
        gsettings set org.gnome.shell enabled-extensions "[\"$uuid\"]"
        gnome-shell --headless --wayland --virtual-monitor 1024x768 >"$HOME/shell.log" 2>&1 &
        shell=$!
        info() {
            gdbus call --session -d org.gnome.Shell -o /org/gnome/Shell \
                -m org.gnome.Shell.Extensions.GetExtensionInfo "$uuid" 2>/dev/null
        }
        for _ in $(seq 150); do info | grep -q "state.: <1.0>" && break; sleep 0.2; done
        echo "       the shell: $(gnome-shell --version); the extension: $(info | grep -o "state.: <[0-9.]*>\|error.: <[^>]*>" | paste -sd" ")"
        check "gnome-shell loads the installed extension (state ENABLED, no error)" "info | grep -q \"state.: <1.0>\"" ||
            tail -n 15 "$HOME/shell.log" | sed "s/^/       shell: /"
        check "the extension registers with the daemon as its enforcer" \
            "(for _ in \$(seq 50); do busctl --user get-property org.guidedaccess.GuidedAccess1 /org/guidedaccess/GuidedAccess1 org.guidedaccess.GuidedAccess1 Enforcers | grep -q gnome-shell && exit 0; sleep 0.2; done; exit 1)"
        kill "$shell"; wait "$shell" 2>/dev/null
        grep -A3 "JS ERROR\|Gjs-WARNING" "$HOME/shell.log" | grep -q "$uuid" && echo "FAILED the shell log names the extension in an error" || true
    ' 2>/dev/null | tee /tmp/checks.log
grep -q '^FAILED' /tmp/checks.log && failed=1
kill "$(cat /tmp/system-bus.pid)"
exit "$failed"
