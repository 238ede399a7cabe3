# SPDX-License-Identifier: GPL-2.0-or-later
# The application launcher for shell/kde/tests/services.py's plasmashell
# stand-in, opened when KWin calls activateLauncherMenu (Meta alone), as
# Plasma's Kickoff opens its popup: an undecorated window that takes the
# keyboard (Kickoff's search field has it as it opens) and closes as soon
# as it loses the keyboard or is minimized (Kickoff's popup hides when it
# is deactivated). A Wayland client of KWin (GTK 3, GDK_BACKEND=wayland),
# titled "launcher". Like the test apps (shell/tests/app.py) it
# appends every key and click it receives to the log file it is given
# ("key TIME NAME" / "click TIME X Y"), so the test sees whether a person
# could use it.
#
#   launcher.py LOG_FILE
import sys

import gi
gi.require_version('Gtk', '3.0')
gi.require_version('Gdk', '3.0')
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

GLib.set_prgname('launcher')
log = open(sys.argv[1], 'a', buffering=1)
had_focus = [False]


def on_key(_window, event):
    log.write(f'key {event.time} {Gdk.keyval_name(event.keyval)}\n')
    return False


def on_button(_widget, event):
    log.write(f'click {event.time} {int(event.x)} {int(event.y)}\n')
    return False


def on_focus_in(_window, _event):
    had_focus[0] = True
    return False


def on_focus_out(_window, _event):
    if had_focus[0]:
        log.write('closed focus-out\n')
        Gtk.main_quit()
    return False


def on_state(_window, event):
    if event.new_window_state & Gdk.WindowState.ICONIFIED:
        log.write('closed minimized\n')
        Gtk.main_quit()
    return False


window = Gtk.Window(title='launcher')
window.set_decorated(False)
window.set_default_size(360, 440)
content = Gtk.EventBox()
content.add_events(Gdk.EventMask.BUTTON_PRESS_MASK)
content.connect('button-press-event', on_button)
content.add(Gtk.Label(label='Applications'))
window.add(content)
window.add_events(Gdk.EventMask.KEY_PRESS_MASK | Gdk.EventMask.FOCUS_CHANGE_MASK)
window.connect('key-press-event', on_key)
window.connect('focus-in-event', on_focus_in)
window.connect('focus-out-event', on_focus_out)
window.connect('window-state-event', on_state)
window.connect('destroy', Gtk.main_quit)
window.show_all()
log.write('opened\n')
Gtk.main()
