# SPDX-License-Identifier: LGPL-2.1-or-later
# `--help` (or -h) for the scripts in scripts/: sourced first thing, before
# anything is installed, built or started, it prints the script's own
# header comment (the lines after the SPDX line up to the first line that
# is not a comment) and exits 0.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/help.bash" "$@"

if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then
    awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
    exit 0
fi
