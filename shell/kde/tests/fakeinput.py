# SPDX-License-Identifier: GPL-2.0-or-later
"""Keys and pointer for shell/kde/tests/run through fake-input.c, built
here at test time against plasma-wayland-protocols' fake-input.xml."""

import os
import subprocess
import time

PROTOCOL = '/usr/share/plasma-wayland-protocols/fake-input.xml'
BTN_LEFT = 272

# Linux key codes (linux/input-event-codes.h) by the names combos use.
KEYS = {
    'esc': 1, 'escape': 1, 'tab': 15, 'enter': 28, 'return': 28, 'ctrl': 29, 'shift': 42, 'alt': 56,
    'space': 57, 'meta': 125, 'super': 125, 'print': 99, 'volumeup': 115,
    **{f'f{n}': 58 + n for n in range(1, 11)},
    **{str(n): 1 + n for n in range(1, 10)}, '0': 11,
    **dict(zip('qwertyuiop', range(16, 26))), **dict(zip('asdfghjkl', range(30, 39))),
    **dict(zip('zxcvbnm', range(44, 51))),
}


def build(source, directory):
    """Compiles SOURCE (fake-input.c, copied where the user who builds it
    can read it: the checkout may be root's alone) into DIRECTORY/fake-input;
    returns its path."""
    for kind, name in (('client-header', 'fake-input-client.h'), ('private-code', 'fake-input-protocol.c')):
        subprocess.run(['wayland-scanner', kind, PROTOCOL, os.path.join(directory, name)], check=True, timeout=30)
    program = os.path.join(directory, 'fake-input')
    subprocess.run(['gcc', '-O1', '-Wall', '-Werror', '-I', directory, '-o', program, source,
                    os.path.join(directory, 'fake-input-protocol.c'), '-lwayland-client', '-lm'],
                   check=True, timeout=60)
    return program


class FakeInput:
    """One fake-input process, connected to KWin; every command waits for
    KWin to have processed it."""

    def __init__(self, program, env):
        self.process = subprocess.Popen([program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env=env, start_new_session=True)
        self.x, self.y = 0, 0

    def command(self, line):
        self.process.stdin.write(line + '\n')
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if answer != 'ok':
            raise RuntimeError(f'fake input: {line!r} → {answer or "exited"}')

    def press(self, key, pressed=True):
        self.command(f'key {KEYS[key.lower()]} {1 if pressed else 0}')

    def key(self, combo, hold=0.0):
        """Presses and releases COMBO ("alt+tab", "meta", "ctrl+f2", "a"):
        modifiers first, released in reverse order."""
        keys = combo.split('+')
        for key in keys:
            self.press(key)
        if hold:
            time.sleep(hold)
        for key in reversed(keys):
            self.press(key, False)

    def type(self, text):
        for character in text:
            self.key(character)

    def move(self, x, y):
        self.command(f'move {x} {y}')
        self.x, self.y = x, y

    def click(self, x, y):
        self.move(x, y)
        self.command(f'button {BTN_LEFT} 1')
        self.command(f'button {BTN_LEFT} 0')

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(5)
        except Exception:
            self.process.kill()
