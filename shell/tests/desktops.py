# SPDX-License-Identifier: GPL-2.0-or-later
"""The desktops whose on-screen suites scripts/test runs, and where: the one
list a new desktop is added to (docs/adding-a-desktop.md). Each desktop's
suite is shell/NAME/tests/run; shell/tests/units makes the units of work
from this list."""

import collections

Desktop = collections.namedtuple('Desktop', 'name title layouts setup groups releases',
                                 defaults=(('host', 'roots'),))
Desktop.__doc__ = """NAME: the desktop's directory in shell/; TITLE: how the
tables name it; LAYOUTS: the monitor layouts its suite runs with --layouts,
by release (`host`, or `roots` for every Debian root), each a unit of its
own (`layouts`: all of them in one shell); GROUPS: the suite's cases by
concern, each a regular expression over case names (scripts/test runs
`all`; a group is for local work: `--unit gnome:trixie:one:assessment`;
`figures`: the latency figures, with the cases that print the others),
run with the cases SETUP matches (what the others assume, and the checks
every run ends with); RELEASES: where its suite runs, `host` and, with
`roots`, every Debian root."""

DESKTOPS = (
    # GNOME Shell reconfigures its virtual monitors through DisplayConfig,
    # so every layout runs in one shell.
    Desktop('gnome', 'GNOME', {'host': ('layouts',), 'roots': ('layouts',)},
            setup=r'^(extension enables|other app unreachable|the shell.s log)', groups={
                'lock': r'^(esm|overview|disabled region|keyboards deny|notifications deny|after End)',
                'resilience': r'^(kill -9|disable/enable|the locked app is launched|the administrator)',
                'dialogs': r'^(triple-press|expiry|accessibility shortcut|start sheet|settings window|time-limit)',
                'modes': r'^(other apps allowed|managed Single App Mode)',
                'assessment': r'^(assessment|red team in an assessment)',
                'redteam': r'^(red team:|the locked app keeps working)',
                'figures': r'^(figures|start sheet: opens|assessment: begin → lock|managed Single App Mode)',
            }),
    # Each KWin layout starts a KWin of its own: each scale in one KWin,
    # integer in 5.27 (the host), fractional in 6.x.
    Desktop('kde', 'KDE', {'host': ('two', 'scale2'), 'roots': ('two', 'scale1.25')},
            setup=r'^script loads', groups={
                'lock': r'^(another app|also-allowed|Alt\+Tab|a click|notifications denied|keyboards denied|an X11)',
                'resilience': r'^(kill -9|unloading|kwinrc|corners|restarting KWin)',
                'dialogs': r'^(Meta\+Alt\+Escape|the dialog|expiry|a session with a time limit)',
                'modes': r'^managed Single App Mode',
                'assessment': r'^(the script unloaded during an assessment|assessment without|red team inside)',
                'plasma': r'^Plasma',
                'figures': r'^(figures|managed Single App Mode)',
            }),
    # Cinnamon (Linux Mint's desktop) under Xvfb; its monitor layouts under
    # Xorg's dummy driver, rearranged with xrandr in one Cinnamon.
    Desktop('cinnamon', 'Cinnamon', {'host': ('layouts',), 'roots': ('layouts',)}, setup=r'^extension enables', groups={
        'lock': r'^(other app|also-allowed|notifications denied|a click in a disabled region|touch denied|unloading|'
                r'switching|kill -9)',
        'dialogs': r'^(Super\+Alt\+Escape|the dialog\'s accessibility switches|a session with a time limit|expiry)',
        'redteam': r'^(red team|another program\'s override-redirect)',
        'modes': r'^managed Single App Mode',
        'settings': r'^Cinnamon.s own settings',
        'assessment': r'^assessment',
        'figures': r'^(figures|managed Single App Mode)',
    }),
)
