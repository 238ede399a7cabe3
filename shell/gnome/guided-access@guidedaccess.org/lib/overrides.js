// SPDX-License-Identifier: GPL-2.0-or-later
// Every change the lock makes to the shell, recorded with what it replaced,
// so that restore() puts back exactly what was there, newest first (like
// GNOME 45's InjectionManager, which GNOME 43 does not have).

export class Overrides {
    constructor() {
        this._undo = [];
    }

    get empty() {
        return this._undo.length === 0;
    }

    // Shadows a method (or any JS property) of `object` with an own
    // property; restore() deletes it again, or puts back an own value.
    replace(object, name, value) {
        const own = Object.prototype.hasOwnProperty.call(object, name);
        const before = own ? object[name] : undefined;
        object[name] = value;
        this._undo.push(() => {
            if (own)
                object[name] = before;
            else
                delete object[name];
        });
    }

    // Sets a property (a GObject one, such as `visible` or `enabled`) and
    // remembers its value before.
    set(object, name, value) {
        const before = object[name];
        object[name] = value;
        this._undo.push(() => {
            object[name] = before;
        });
    }

    connect(object, signal, handler) {
        const id = object.connect(signal, handler);
        this._undo.push(() => object.disconnect(id));
    }

    // Anything else to undo.
    defer(undo) {
        this._undo.push(undo);
    }

    restore() {
        while (this._undo.length > 0)
            this._undo.pop()();
    }
}
