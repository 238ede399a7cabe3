# A real polkitd on a private system bus, for scripts (source this file).
# The shell form of Sources/DBusTesting/PolkitTestAuthority.swift, on the
# same facts about polkitd 122 (Debian 12):
#   - it has no option for its bus or its directories: it talks on the bus
#     named by DBUS_SYSTEM_BUS_ADDRESS and reads actions from
#     /usr/share/polkit-1/actions and rules from /etc/polkit-1/rules.d, so
#     policy and rules are installed there (root) under unique names, and
#     removed again;
#   - every polkitd watches those directories, so all of them see all rules:
#     one private authority at a time, under the flock the tests take
#     (/run/lock/dbus-testing-polkit.lock);
#   - it starts as root and drops to the `polkitd` user, which must reach the
#     bus socket (the work directory is 0755).
#
#   private_polkit_start WORK NAME [POLICY_FILE] [RULES_TEXT]
#       WORK: an empty directory of the caller's, removed by private_polkit_stop.
#       NAME: part of the installed files' names, e.g. guided-access-try-$$.
#       Sets PRIVATE_POLKIT_ADDRESS (give it to clients as
#       DBUS_SYSTEM_BUS_ADDRESS), PRIVATE_POLKIT_BUS_PID, PRIVATE_POLKIT_PID
#       and PRIVATE_POLKIT_FILES (the installed files). Returns 1 with a
#       message when something cannot start (call private_polkit_stop then).
#   private_polkit_track PID
#       another process private_polkit_stop ends (e.g. a daemon using it).
#   private_polkit_stop
#       stops the tracked processes, polkitd and the bus, removes the files
#       and WORK, releases the lock. Safe to call twice; also run by a
#       watcher when the calling script dies without calling it (SIGKILL).
#
# Everything to undo is written to WORK/undo as it is made, so the watcher
# and private_polkit_stop work from the same list.

# shellcheck source=scripts/lib/system-bus-config.bash
source "$(dirname "${BASH_SOURCE[0]}")/system-bus-config.bash"
PRIVATE_POLKIT_LOCK="/run/lock/dbus-testing-polkit.lock"
[[ -d /run/lock ]] || PRIVATE_POLKIT_LOCK="/tmp/dbus-testing-polkit.lock"
PRIVATE_POLKIT_POLKITD="/usr/lib/polkit-1/polkitd"
PRIVATE_POLKIT_ACTIONS="/usr/share/polkit-1/actions"
PRIVATE_POLKIT_RULES="/etc/polkit-1/rules.d"
# The lock's descriptor: held by this script and its watcher, closed for
# every other child, so the lock goes when both have gone.
PRIVATE_POLKIT_LOCK_FD=""
private_polkit_work=""
private_polkit_watcher=""

# Writes FILE with mode 0644 (polkitd reads it as user polkitd) through a
# temporary name, so its directory watch never sees half a file.
private_polkit_install() {  # private_polkit_install TARGET < content
    local target="$1" temporary
    if [[ -e "$target" ]]; then
        echo "private-polkit: refusing to overwrite $target" >&2
        return 1
    fi
    temporary="$(dirname "$target")/.$(basename "$target").tmp"
    echo "remove $target" >> "$private_polkit_work/undo"
    cat > "$temporary" && chmod 0644 "$temporary" && mv "$temporary" "$target"
    PRIVATE_POLKIT_FILES+=("$target")
}

private_polkit_track() {
    echo "kill $1" >> "$private_polkit_work/undo"
}

# Undoes WORK/undo: the files go first, so no grant outlives the run by a
# moment; then processes get SIGTERM (SIGCONT first, in case one is
# stopped), and SIGKILL after two seconds. Runs from EXIT traps and the
# watcher, so no command in it may fail under `set -e`: a process that has
# already gone is the usual case.
private_polkit_undo() {  # private_polkit_undo WORK
    local work="$1" action argument pids=() pid alive
    if [[ -f "$work/undo" ]]; then
        while read -r action argument; do
            case "$action" in
                remove) rm -f "$argument" || true ;;
                kill) pids+=("$argument") ;;
            esac
        done < "$work/undo"
    fi
    for pid in "${pids[@]}"; do
        kill -CONT "$pid" 2>/dev/null || true
        kill -TERM "$pid" 2>/dev/null || true
    done
    for _ in $(seq 20); do
        alive=0
        for pid in "${pids[@]}"; do
            if kill -0 "$pid" 2>/dev/null; then alive=1; fi
        done
        if [[ $alive == 0 ]]; then break; fi
        sleep 0.1
    done
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$work" || true
}

private_polkit_stop() {
    [[ -n "$private_polkit_work" ]] || return 0
    if [[ -n "$private_polkit_watcher" ]]; then
        kill -TERM "$private_polkit_watcher" 2>/dev/null || true
        wait "$private_polkit_watcher" 2>/dev/null || true
        private_polkit_watcher=""
    fi
    private_polkit_undo "$private_polkit_work"
    private_polkit_work=""
    if [[ -n "$PRIVATE_POLKIT_LOCK_FD" ]]; then
        exec {PRIVATE_POLKIT_LOCK_FD}>&-
        PRIVATE_POLKIT_LOCK_FD=""
    fi
}

private_polkit_wait_for_name() {  # private_polkit_wait_for_name ADDRESS NAME SECONDS
    local deadline=$((SECONDS + $3))
    until dbus-send --bus="$1" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner "string:$2" 2>/dev/null | grep -q 'boolean true'; do
        ((SECONDS < deadline)) || return 1
        sleep 0.05
    done
}

private_polkit_start() {
    local work="$1" name="$2" policy="${3:-}" rules="${4:-}" lock_wait=600
    private_polkit_work="$work"
    PRIVATE_POLKIT_FILES=()
    : > "$work/undo"
    chmod 0755 "$work"
    if [[ ! -x "$PRIVATE_POLKIT_POLKITD" ]]; then
        echo "private-polkit: no polkitd at $PRIVATE_POLKIT_POLKITD (apt-get install polkitd)" >&2
        return 1
    fi

    exec {PRIVATE_POLKIT_LOCK_FD}>>"$PRIVATE_POLKIT_LOCK"
    if ! flock -n "$PRIVATE_POLKIT_LOCK_FD"; then
        echo "==> waiting for another private polkitd (a test run?) to stop: every polkitd reads every rule," \
             "so one runs at a time ($PRIVATE_POLKIT_LOCK, up to ${lock_wait}s)" >&2
        if ! flock -w "$lock_wait" "$PRIVATE_POLKIT_LOCK_FD"; then
            echo "private-polkit: $PRIVATE_POLKIT_LOCK stayed locked for ${lock_wait}s" >&2
            return 1
        fi
    fi

    # A watcher that undoes everything if this script dies without doing it
    # (SIGKILL), and holds the lock until then. It ignores the terminal's
    # Ctrl+C, as background jobs do.
    local parent=$$
    (
        trap '' INT HUP
        trap 'exit 0' TERM
        while kill -0 "$parent" 2>/dev/null; do sleep 0.5 & wait $!; done
        private_polkit_undo "$work"
    ) &
    private_polkit_watcher=$!

    if [[ -n "$policy" ]]; then
        private_polkit_install "$PRIVATE_POLKIT_ACTIONS/$name-$(basename "$policy")" < "$policy" || return 1
    fi
    if [[ -n "$rules" ]]; then
        # 49-: read before the distribution's 50-default.rules.
        private_polkit_install "$PRIVATE_POLKIT_RULES/49-$name.rules" <<< "$rules" || return 1
    fi

    system_bus_config "$work/system_bus_socket" > "$work/system.conf"
    # --fork: it detaches once it listens, after writing its address and pid.
    dbus-daemon --config-file="$work/system.conf" --fork --nosyslog \
        --print-address=3 --print-pid=4 3>"$work/system-bus.address" 4>"$work/system-bus.pid" \
        {PRIVATE_POLKIT_LOCK_FD}>&- || return 1
    PRIVATE_POLKIT_BUS_PID="$(head -n 1 "$work/system-bus.pid")"
    PRIVATE_POLKIT_ADDRESS="$(head -n 1 "$work/system-bus.address")"
    private_polkit_track "$PRIVATE_POLKIT_BUS_PID"

    DBUS_SYSTEM_BUS_ADDRESS="$PRIVATE_POLKIT_ADDRESS" "$PRIVATE_POLKIT_POLKITD" --no-debug \
        </dev/null >"$work/polkitd.log" 2>&1 {PRIVATE_POLKIT_LOCK_FD}>&- &
    PRIVATE_POLKIT_PID=$!
    private_polkit_track "$PRIVATE_POLKIT_PID"
    if ! private_polkit_wait_for_name "$PRIVATE_POLKIT_ADDRESS" org.freedesktop.PolicyKit1 10; then
        echo "private-polkit: polkitd did not own org.freedesktop.PolicyKit1 within 10 s:" >&2
        sed 's/^/    /' "$work/polkitd.log" >&2
        return 1
    fi
}
