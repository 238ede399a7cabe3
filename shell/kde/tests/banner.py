# SPDX-License-Identifier: GPL-2.0-or-later
# A notification banner for shell/kde/tests/services.py's notification
# server, which shows one per Notify as Plasma's own server would (plasmashell
# is not installed here): an X11 window of type notification (GTK 3,
# GDK_BACKEND=x11 on KWin's Xwayland), at the top right, titled after the
# notification's summary. It stays until it is ended (CloseNotification).
#
#   banner.py SUMMARY BODY
import sys

import gi
gi.require_version('Gtk', '3.0')
gi.require_version('Gdk', '3.0')
from gi.repository import Gdk, Gtk  # noqa: E402

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
window.show_all()
Gtk.main()
