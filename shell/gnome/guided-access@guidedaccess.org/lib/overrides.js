// SPDX-License-Identifier: GPL-2.0-or-later
// Every change the lock makes to the shell, recorded with what it replaced,
// so that destroy() puts back exactly what was there, newest first (like
// GNOME 45's InjectionManager, which GNOME 43 does not have).

export class Overrides {
    constructor() {
        this._undo = [];
    }

    get empty() {
        return this._undo.length === 0;
    }

    // Shadows a method (or any JS property) of `object` with an own value.
    // The own property that was there is saved as its descriptor (a value
    // or accessors, with its attributes) and put back as it was; when there
    // was none (a method of the class), the shadow is removed again. Defined,
    // not assigned: a setter of the class is never run.
    replace(object, name, value) {
        const before = Object.getOwnPropertyDescriptor(object, name);
        Object.defineProperty(object, name, {
            value, writable: true, configurable: true, enumerable: before?.enumerable ?? false,
        });
        this._undo.push(() => {
            if (before === undefined)
                delete object[name];
            else
                Object.defineProperty(object, name, before);
        });
    }

    // Sets a property (a GObject one, such as `visible` or `enabled`) and
    // puts back the value it had.
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

    destroy() {
        while (this._undo.length > 0)
            this._undo.pop()();
    }
}
