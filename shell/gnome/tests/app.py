# A test app for shell/gnome/tests/run: one GTK 3 window titled after its
# first argument that appends every click and key it receives to the log
# file named by its second argument ("click TIME X Y" / "key TIME NAME").
# The harness runs it with a private copy of the python interpreter as
# executable, so every app has its own app id (the executable path).
import sys

import gi
gi.require_version('Gtk', '3.0')
gi.require_version('Gdk', '3.0')
from gi.repository import Gdk, Gtk  # noqa: E402

title, log_path = sys.argv[1], sys.argv[2]
log = open(log_path, 'a', buffering=1)


def on_button(_widget, event):
    log.write(f'click {event.time} {int(event.x)} {int(event.y)}\n')
    return False


def on_key(_widget, event):
    log.write(f'key {event.time} {Gdk.keyval_name(event.keyval)}\n')
    return False


window = Gtk.Window(title=title)
window.set_default_size(600, 400)
window.add_events(Gdk.EventMask.BUTTON_PRESS_MASK | Gdk.EventMask.KEY_PRESS_MASK)
window.connect('button-press-event', on_button)
window.connect('key-press-event', on_key)
window.connect('destroy', Gtk.main_quit)
window.show_all()
log.write('ready\n')
Gtk.main()
