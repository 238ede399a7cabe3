# SPDX-License-Identifier: GPL-2.0-or-later
"""at-spi for shell/gnome/tests: finds and works controls the way assistive
technology does (a screen reader, switch access), through
gi.repository.Atspi on the session's accessibility bus.

    a11y = Accessibility(session_bus_address)
    shell = a11y.wait_app('gnome-shell', 10)             # gnome-shell's own St widgets
    system = a11y.wait_find(shell, 'menu', 'System', 5)  # the top bar's system menu
    activities = a11y.find_labelled(shell, 'toggle button', 'Activities')   # named by its inner label
    prefs = a11y.wait_app('org.gnome.Shell.Extensions', 20)   # a GTK 4 app (by its application id or program name)
    switch = a11y.wait_find(prefs, 'toggle button', 'Play a sound', 5)
    a11y.press(switch); a11y.checked(switch)

Roles are at-spi's role names as at-spi 2.46 gives them ('push button',
'toggle button', 'check box', 'password text', 'text', 'combo box', 'label',
'frame', 'menu', ...), matched by the Atspi.Role they stand for: newer
at-spi names some roles differently (2.56: 'button' for a push button), and
GTK 4.18+ gives a password entry 'password text' and a switch 'switch',
which 'text', and 'toggle button' or 'check box', also match. A name is an exact string or a
callable that gets the name and says yes or no.

The accessibility bus: apps find it through org.a11y.Bus on the session bus
(at-spi-bus-launcher, bus-activated there); a client finds it the same way,
so the session bus address must be known before Atspi is first used (it is
put into this process's environment, where libatspi looks for it). One
process talks to one session's accessibility bus.

gnome-shell registers on that bus when it starts with the at-spi bridge
(NO_AT_BRIDGE unset) and org.gnome.desktop.interface toolkit-accessibility
true; its actors appear with the accessible name and role the shell gives
them (St's accessible_name, accessible_role). GTK 4 apps always register.
"""

import os
import re
import time

_Atspi = None
_GLib = None


def _load(session_bus_address):
    global _Atspi, _GLib
    if _Atspi is not None:
        if os.environ.get('DBUS_SESSION_BUS_ADDRESS') != session_bus_address:
            raise RuntimeError('at-spi is already connected to another session bus in this process')
        return
    os.environ['DBUS_SESSION_BUS_ADDRESS'] = session_bus_address
    os.environ.pop('AT_SPI_BUS_ADDRESS', None)
    import gi
    gi.require_version('Atspi', '2.0')
    from gi.repository import Atspi, GLib

    def quiet(domain, level, message):
        # GTK 4.8 apps have no org.a11y.atspi.Cache object, which libatspi
        # asks every app for once: expected, not worth a warning per run.
        if 'GetItems' not in message:
            GLib.log_default_handler(domain, level, message)
    GLib.log_set_handler('dbind', GLib.LogLevelFlags.LEVEL_WARNING, quiet)
    Atspi.init()
    _Atspi, _GLib = Atspi, GLib


class Accessibility:
    def __init__(self, session_bus_address):
        _load(session_bus_address)
        self.Atspi = _Atspi

    # -- looking -------------------------------------------------------------

    def _pump(self):
        """Lets libatspi take in the events that keep its cache current."""
        context = _GLib.MainContext.default()
        while context.pending():
            context.iteration(False)

    def apps(self):
        """The registered apps: {name: accessible} (the last one of a name wins)."""
        self._pump()
        desktop = _Atspi.get_desktop(0)
        found = {}
        for index in range(desktop.get_child_count()):
            try:
                app = desktop.get_child_at_index(index)
                if app is not None:
                    found[app.get_name()] = app
            except _GLib.Error:
                continue  # went away meanwhile
        return found

    def wait_app(self, name, timeout):
        return self._wait(lambda: self.apps().get(name), timeout, f'the app {name!r} on the accessibility bus')

    @staticmethod
    def _matches(expected, actual):
        return expected(actual) if callable(expected) else expected == actual

    def walk(self, root, limit=20000):
        """Every accessible under `root` (root included), depth first; at
        most `limit`, so a runaway tree cannot hang a test."""
        self._pump()
        stack = [root]
        seen = 0
        while stack and seen < limit:
            accessible = stack.pop()
            seen += 1
            yield accessible
            try:
                count = accessible.get_child_count()
            except _GLib.Error:
                continue
            for index in reversed(range(count)):
                try:
                    child = accessible.get_child_at_index(index)
                except _GLib.Error:
                    continue
                if child is not None:
                    stack.append(child)

    def find_all(self, root, role=None, name=None, showing=False):
        found = []
        for accessible in self.walk(root):
            try:
                if role is not None and not self.has_role(accessible, role):
                    continue
                if name is not None and not self._matches(name, accessible.get_name()):
                    continue
                if showing and not self.has_state(accessible, 'showing'):
                    continue
            except _GLib.Error:
                continue
            found.append(accessible)
        return found

    # What GTK 4.18+ with at-spi 2.56 says for a role older ones named so.
    NEWER_ROLES = {'text': ('password text',), 'toggle button': ('switch',), 'check box': ('switch',)}

    @classmethod
    def has_role(cls, accessible, role):
        """Whether `accessible` has the role named `role` ('push button'),
        or what newer toolkits give the same control."""
        roles = [getattr(_Atspi.Role, name.upper().replace(' ', '_'), None)
                 for name in (role, *cls.NEWER_ROLES.get(role, ()))]
        return accessible.get_role() in roles

    def find(self, root, role=None, name=None, showing=False):
        """The first accessible under `root` with this role and name, or None."""
        found = self.find_all(root, role, name, showing)
        return found[0] if found else None

    def label_text(self, accessible):
        """The accessible's name, or when it has none, the name of the first
        label inside it (gnome-shell's St buttons often carry their text as
        a child label: the top bar's Activities is a nameless toggle button
        around a label 'Activities')."""
        name = accessible.get_name()
        if name:
            return name
        label = self.find(accessible, 'label', lambda text: bool(text))
        return label.get_name() if label is not None else ''

    def find_labelled(self, root, role, text):
        """The first accessible with this role whose name, or else inner
        label, is `text` (a string or a callable)."""
        for accessible in self.find_all(root, role):
            try:
                if self._matches(text, self.label_text(accessible)):
                    return accessible
            except _GLib.Error:
                continue
        return None

    def wait_find(self, root, role, name, timeout, showing=False):
        return self._wait(lambda: self.find(root, role, name, showing), timeout, f'a {role} named {name!r}')

    def describe(self, root, limit=400):
        """role 'name' [states] of each accessible under root, indented: for a
        failure message or for writing a test against an unknown tree."""
        lines = []

        def visit(accessible, depth):
            if len(lines) >= limit:
                return
            try:
                states = ','.join(self.states(accessible) & {'focused', 'checked', 'sensitive', 'showing'})
                lines.append(f'{"  " * depth}{accessible.get_role_name()} {accessible.get_name()!r} [{states}]')
                for index in range(accessible.get_child_count()):
                    child = accessible.get_child_at_index(index)
                    if child is not None:
                        visit(child, depth + 1)
            except _GLib.Error:
                return
        self._pump()
        visit(root, 0)
        return '\n'.join(lines)

    # -- what a screen reader says --------------------------------------------

    # The roles of what a person works (at-spi 2.46's names; newer ones are
    # matched through NEWER_ROLES and the extra names): each must have a name.
    CONTROL_ROLES = ('push button', 'button', 'toggle button', 'check box', 'radio button', 'switch',
                     'spin button', 'slider', 'combo box', 'menu item', 'check menu item', 'radio menu item',
                     'scroll bar', 'page tab', 'link')
    # Text is a control where it can be typed into: the shell's labels are
    # (non-editable) text too.
    TEXT_ROLES = ('text', 'password text', 'entry')
    # What a toolkit says when nothing named a widget: GTK 4 gives the type
    # name (widget name) of it or of its child ("GtkImage"), Clutter the
    # actor's name; a screen reader reads that out, so it counts as none.
    TYPE_NAME = re.compile(r'^(Gtk|Adw|St|Clutter|Cally|Shell|Meta|Gjs|Gdk)[A-Z]\w*$')

    def is_control(self, accessible):
        """Whether a person works `accessible`: an interactive role, or
        text that can be typed into."""
        if any(self.has_role(accessible, role) for role in self.CONTROL_ROLES):
            return True
        return (any(self.has_role(accessible, role) for role in self.TEXT_ROLES)
                and 'editable' in self.states(accessible))

    def nameless(self, name):
        """Why a screen reader would not say a name for this control, or None."""
        if not (name or '').strip():
            return 'no name'
        if self.TYPE_NAME.match(name.strip()):
            return 'a type name'
        return None

    def audit(self, root, skip=lambda accessible: False):
        """The controls under `root` (see is_control) and those without a
        name a screen reader can say: ({path: (role, name)}, [line, ...]).
        A path is the roles from root down with each one's index among its
        parent's children, so a failure says where the control is; `skip`
        leaves out a subtree (an accessible and all under it)."""
        self._pump()
        controls, unnamed = {}, []

        def visit(accessible, path, index):
            if path.count('/') > 60:
                return
            try:
                if skip(accessible):
                    return
                role = accessible.get_role_name()
                here = f'{path}/{role}[{index}]' if path else role
                if self.is_control(accessible):
                    name = accessible.get_name()
                    controls[here] = (role, name)
                    why = self.nameless(name)
                    if why is not None:
                        unnamed.append(f'{role} {name!r} ({why}) at {here}')
                for index in range(accessible.get_child_count()):
                    child = accessible.get_child_at_index(index)
                    if child is not None:
                        visit(child, here, index)
            except _GLib.Error:
                return  # went away meanwhile
        visit(root, '', 0)
        return controls, unnamed

    @staticmethod
    def a11y_line(window, controls, unnamed):
        """The line a walk prints: `A11Y start sheet: 31 controls, unnamed: 0`,
        then one line per unnamed control."""
        return '\n'.join([f'A11Y {window}: {len(controls)} controls, unnamed: {len(unnamed)}']
                          + [f'  unnamed {line}' for line in unnamed])

    # -- state ---------------------------------------------------------------

    def states(self, accessible):
        """Names of the states set on `accessible` ('checked', 'focused', ...)."""
        state_set = accessible.get_state_set()
        return {_Atspi.StateType(state).value_nick for state in state_set.get_states()}

    def has_state(self, accessible, state):
        self._pump()
        return state in self.states(accessible)

    def usable(self, accessible):
        """Whether a person can use `accessible`: it and every container
        around it are sensitive (GTK 4.18+ reports a control inside a
        greyed-out group as sensitive itself)."""
        self._pump()
        while accessible is not None and accessible.get_role() != _Atspi.Role.APPLICATION:
            if 'sensitive' not in self.states(accessible):
                return False
            accessible = accessible.get_parent()
        return True

    def checked(self, accessible):
        return self.has_state(accessible, 'checked')

    @staticmethod
    def interfaces(accessible):
        """The at-spi interfaces it implements ('Action', 'Component',
        'EditableText', 'Text', ...)."""
        return set(accessible.get_interfaces())

    def text(self, accessible):
        """The text of a text accessible (an entry's contents)."""
        if 'Text' not in self.interfaces(accessible):
            return None
        return accessible.get_text(0, accessible.get_character_count())

    # -- doing ---------------------------------------------------------------

    def actions(self, accessible):
        if 'Action' not in self.interfaces(accessible):
            return []
        return [accessible.get_action_name(index) for index in range(accessible.get_n_actions())]

    def press(self, accessible, preferred=('click', 'activate', 'press', 'toggle')):
        """Runs the accessible's default action (a button's click, a switch's
        toggle), as a screen reader's "activate" does."""
        names = self.actions(accessible)
        if not names:
            raise RuntimeError(f'{accessible.get_role_name()} {accessible.get_name()!r} has no action')
        index = next((names.index(name) for name in preferred if name in names), 0)
        if not accessible.do_action(index):
            raise RuntimeError(f'the action {names[index]!r} of {accessible.get_name()!r} failed')

    def focus(self, accessible):
        """Gives `accessible` the keyboard focus (Component.GrabFocus; GTK 4.8
        does not implement it: use tab_to there)."""
        try:
            if 'Component' in self.interfaces(accessible) and accessible.grab_focus():
                return
        except _GLib.Error:
            pass
        raise RuntimeError(f'{accessible.get_role_name()} {accessible.get_name()!r} cannot take the focus '
                           'through at-spi')

    def focused(self, root):
        """The accessibles under `root` that have the keyboard focus."""
        return [accessible for accessible in self.walk(root) if self.has_state(accessible, 'focused')]

    def tab_to(self, root, role, name, tab, limit=40):
        """Moves the keyboard focus with `tab()` (a function that presses Tab,
        e.g. with the shell's virtual keyboard) until an accessible under
        `root` with this role and name has it; returns that accessible. The
        way a keyboard-only person reaches a control."""
        for _ in range(limit):
            for accessible in self.focused(root):
                if self.has_role(accessible, role) and self._matches(name, accessible.get_name()):
                    return accessible
            tab()
            time.sleep(0.1)
        raise TimeoutError(f'{limit} presses of Tab did not reach a {role} named {name!r}')

    def type_text(self, accessible, text, keyboard=None):
        """Puts `text` into an editable accessible (replacing what it held):
        through its EditableText interface when it has one, else by focusing
        it and typing with `keyboard(text)` (a function that types, e.g. with
        the shell's virtual keyboard; at-spi's own key synthesis needs X11)."""
        if 'EditableText' in self.interfaces(accessible) and accessible.set_text_contents(text):
            return
        if keyboard is None:
            raise RuntimeError(f'{accessible.get_name()!r} is not editable through at-spi and no keyboard was given')
        self.focus(accessible)
        self._wait(lambda: self.has_state(accessible, 'focused'), 5, f'{accessible.get_name()!r} to have the focus')
        keyboard(text)

    # -- waiting -------------------------------------------------------------

    def _wait(self, probe, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = probe()
            except _GLib.Error:
                value = None
            if value:
                return value
            if time.monotonic() >= deadline:
                raise TimeoutError(f'timed out after {timeout} s waiting for {what}')
            time.sleep(0.1)

    def wait(self, probe, timeout, what):
        """Like waiting.wait_for, with libatspi's events taken in between."""
        def pumped():
            self._pump()
            return probe()
        return self._wait(pumped, timeout, what)
