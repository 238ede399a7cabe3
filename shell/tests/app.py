# SPDX-License-Identifier: GPL-2.0-or-later
# A test app for the on-screen suites (shell/gnome/tests, shell/kde/tests): one GTK 3 window titled after its
# first argument that appends every click and key it receives to the log
# file named by its second argument ("click TIME X Y" / "key TIME NAME").
# The harness runs it with a private copy of the python interpreter as
# executable, so every app has its own app id (the executable path).
#
# What a person can do inside the app, for the over-blocking checks: F5
# opens a second window ("TITLE 2"), F6 a dialog attached to the window
# ("TITLE dialog"), a right-click in the window a popup menu whose item
# logs "menu TIME item". With a third argument `overlay` it is instead an
# X11 override-redirect window over the whole screen (run it with
# GDK_BACKEND=x11), as a program that wants to cover the screen would map;
# with `overlay-grab` that window also grabs the keyboard once mapped
# (XGrabKeyboard, as any X11 client may) and logs "grab STATUS", and "grab
# broken" should the X server end the grab.
#
# With a third argument that is a number N it opens N windows ("TITLE",
# "TITLE 2", …), as a browser with many windows does.
#
# Like an app that adopts Guided Access, it registers one custom restriction,
# org.example.TITLE.chat ("Chat in TITLE"), and logs every RestrictionChanged
# it hears for it ("restriction IDENTIFIER STATE").
import sys

import gi
gi.require_version('Gtk', '3.0')
gi.require_version('Gdk', '3.0')
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

title, log_path = sys.argv[1], sys.argv[2]
overlay = sys.argv[3:] in (['overlay'], ['overlay-grab'])
grab = sys.argv[3:] == ['overlay-grab']
window_count = int(sys.argv[3]) if sys.argv[3:] and sys.argv[3].isdigit() else 1
GLib.set_prgname(title)
log = open(log_path, 'a', buffering=1)
windows = []


def on_button(widget, event):
    log.write(f'click {event.time} {int(event.x)} {int(event.y)}\n')
    if event.button == Gdk.BUTTON_SECONDARY and event.type == Gdk.EventType.BUTTON_PRESS:
        menu = Gtk.Menu()
        item = Gtk.MenuItem(label='Item')
        item.connect('activate', lambda _item: log.write(f'menu {Gtk.get_current_event_time()} item\n'))
        menu.append(item)
        menu.show_all()
        menu.attach_to_widget(widget, None)
        menu.popup_at_pointer(event)
    return False


def on_key(window, event):
    name = Gdk.keyval_name(event.keyval)
    log.write(f'key {event.time} {name}\n')
    if name == 'F5':
        new_window(f'{title} 2')
    elif name == 'F6':
        dialog = Gtk.Dialog(title=f'{title} dialog', transient_for=window, modal=True)
        dialog.add_button('Close', Gtk.ResponseType.CLOSE)
        dialog.connect('response', lambda d, _r: d.destroy())
        dialog.show_all()
    return False


def new_window(window_title):
    kind = Gtk.WindowType.POPUP if overlay else Gtk.WindowType.TOPLEVEL
    window = Gtk.Window(type=kind, title=window_title)
    if overlay:
        window.move(0, 0)
        window.set_default_size(*Gdk.Screen.get_default().get_root_window().get_geometry()[2:4])
    else:
        window.set_default_size(600, 400)
    # Clicks are taken by the content, so the title bar keeps GTK's own
    # handling (a right-click there asks the compositor for the window menu).
    content = Gtk.EventBox()
    content.add_events(Gdk.EventMask.BUTTON_PRESS_MASK)
    content.connect('button-press-event', on_button)
    window.add(content)
    window.add_events(Gdk.EventMask.KEY_PRESS_MASK)
    window.connect('key-press-event', on_key)
    window.connect('destroy', window_closed)
    if grab:
        window.connect('map-event', grab_keyboard)
        window.connect('grab-broken-event', lambda _window, _event: log.write('grab broken\n'))
    window.show_all()
    windows.append(window)


def grab_keyboard(window, _event):
    seat = Gdk.Display.get_default().get_default_seat()
    status = seat.grab(window.get_window(), Gdk.SeatCapabilities.KEYBOARD, True, None, None, None)
    log.write(f'grab {status.value_nick}\n')


def window_closed(window):
    windows.remove(window)
    if not windows:
        Gtk.main_quit()


def register_restriction():
    try:
        import dbus
        import dbus.mainloop.glib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.SessionBus()
        service = dbus.Interface(bus.get_object('org.guidedaccess.GuidedAccess1', '/org/guidedaccess/GuidedAccess1'),
                                 'org.guidedaccess.Restrictions1')
        identifier = f'org.example.{title.replace("-", "")}.chat'
        service.Register([(identifier, f'Chat in {title}', 'Messages to other people')], signature='a(sss)')
        service.connect_to_signal('RestrictionChanged', lambda changed, state: log.write(
            f'restriction {changed} {state}\n') if changed == identifier else None)
        # The bus connection lives as long as the app: so does the registration.
        buses.append(bus)
    except Exception as error:  # the daemon may be held back on purpose
        log.write(f'register failed {error}\n')


buses = []
new_window(title)
for number in range(2, window_count + 1):
    new_window(f'{title} {number}')
register_restriction()
log.write('ready\n')
Gtk.main()
