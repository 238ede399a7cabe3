# SPDX-License-Identifier: GPL-2.0-or-later
# A stand-in for a panel or a dock on a monitor (Plasma's panels are not
# installed for the tests): one GTK 3 window through Xwayland with the dock
# type, so KWin treats it as a panel (never minimized, kept above apps, not
# placed by KWin), at X Y with size W H in logical pixels; it appends
# every click it receives to LOG as the test apps do ("click TIME X Y").
#
#     dock.py NAME LOG X Y W H      (GDK_BACKEND=x11)
import sys

import gi
gi.require_version('Gtk', '3.0')
gi.require_version('Gdk', '3.0')
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

title, log_path = sys.argv[1], sys.argv[2]
x, y, width, height = (int(value) for value in sys.argv[3:7])
GLib.set_prgname(title)
log = open(log_path, 'a', buffering=1)


def on_button(_widget, event):
    log.write(f'click {event.time} {int(event.x)} {int(event.y)}\n')
    return False


window = Gtk.Window(title=title)
window.set_type_hint(Gdk.WindowTypeHint.DOCK)
window.set_decorated(False)
window.set_default_size(width, height)
window.move(x, y)
content = Gtk.EventBox()
content.add_events(Gdk.EventMask.BUTTON_PRESS_MASK)
content.connect('button-press-event', on_button)
content.add(Gtk.Label(label=title))
window.add(content)
window.connect('destroy', Gtk.main_quit)
window.show_all()
log.write('ready\n')
Gtk.main()
