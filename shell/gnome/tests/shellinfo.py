# SPDX-License-Identifier: GPL-2.0-or-later
"""What the GNOME suite's modules (run, lockcases.py, resiliencecases.py)
know of the shell under test: the extensions' ids, its major version, the
keys the cases press."""

import re
import subprocess

UUID = 'guided-access@guidedaccess.org'
HELPER_UUID = 'unsafe-mode@tests.guidedaccess.org'


def shell_major_version():
    """The major version of the gnome-shell on PATH (43 when it cannot tell)."""
    try:
        answer = subprocess.run(['gnome-shell', '--version'], capture_output=True, text=True, timeout=30).stdout
        return int(re.search(r'GNOME Shell (\d+)', answer).group(1))
    except (OSError, subprocess.SubprocessError, AttributeError):
        return 43


SHELL_MAJOR = shell_major_version()

KEY = {'Super_L': 0xffeb, 'Alt_L': 0xffe9, 'Tab': 0xff09, 'Escape': 0xff1b, 'Return': 0xff0d, 'a': 0x61}
END_SHORTCUT = f'global._ga.tap([{KEY["Super_L"]}, {KEY["Alt_L"]}], {KEY["Escape"]})'
