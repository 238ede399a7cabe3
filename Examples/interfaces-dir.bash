# SPDX-License-Identifier: LGPL-2.1-or-later
# The directory of Guided Access's interface XML for the examples' build.sh:
# the one given, else the installed one (pkg-config's interfaces_dir), else
# dbus/ of this checkout when Guided Access is not installed.
#
#   source "$here/../interfaces-dir.bash"; interfaces="$(interfaces_dir "${2:-}")"
interfaces_dir() {
    local given=$1 dir
    dir="${given:-$(pkg-config --variable=interfaces_dir dbus-1)}"
    if [[ -z $given && ! -e "$dir/org.guidedaccess.GuidedAccess1.xml" ]]; then
        dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/dbus"
        echo "build.sh: Guided Access's interfaces are not installed; using this checkout's $dir" >&2
    fi
    if [[ ! -e "$dir/org.guidedaccess.GuidedAccess1.xml" ]]; then
        echo "build.sh: no org.guidedaccess.GuidedAccess1.xml in $dir; give the directory that holds it" >&2
        return 2
    fi
    echo "$dir"
}
