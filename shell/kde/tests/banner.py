# SPDX-License-Identifier: GPL-2.0-or-later
# A notification banner for shell/kde/tests/services.py's notification
# server, which shows one per Notify as Plasma's own server would (plasmashell
# is not installed here): an X11 window of type notification (GTK 3,
# GDK_BACKEND=x11 on KWin's Xwayland), at the top right, titled after the
# notification's summary. It fades itself in, as some notification servers'
# banners do (GTK sets the window's _NET_WM_WINDOW_OPACITY, which KWin
# takes as the window's opacity), and stays until it is ended
# (CloseNotification).
#
#   banner.py SUMMARY BODY
import sys

import gi
gi.require_version('Gtk', '3.0')
gi.require_version('Gdk', '3.0')
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

summary, body = sys.argv[1], sys.argv[2]
window = Gtk.Window(title=summary)
window.set_type_hint(Gdk.WindowTypeHint.NOTIFICATION)
window.set_decorated(False)
window.set_accept_focus(False)
window.set_default_size(320, 90)
width = Gdk.Screen.get_default().get_root_window().get_geometry()[2]
window.move(width - 340, 20)
label = Gtk.Label(label=f'{summary}\n{body}')
window.add(label)
window.connect('destroy', Gtk.main_quit)
window.set_opacity(0.4)
window.show_all()
fade = [0.6, 0.8, 1.0]


def fade_in():
    window.set_opacity(fade.pop(0))
    return bool(fade)


GLib.timeout_add(80, fade_in)
Gtk.main()
