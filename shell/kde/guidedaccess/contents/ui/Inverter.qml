// SPDX-License-Identifier: GPL-2.0-or-later
// The session's Invert Colors (Features1.InvertColors) on screen, for as
// long as this item exists. Plasma has no switch that inverts the screen:
// KWin's invert effect, once loaded, inverts it when its global shortcut is
// pressed. So the effect is loaded if it is not, and the shortcut invoked
// through kglobalaccel (which runs it while ShortcutBlock blocks its keys)
// unless the screen is inverted already. On destruction: the shortcut again
// if it inverted, and once the effect no longer inverts, the effect
// unloaded if it loaded it. The effect draws with OpenGL only: where KWin
// composites otherwise it says so in the log and changes nothing.
import QtQuick 2.15
import "../code/effects.js" as Effects

Item {
    id: inverter

    property Bus bus
    // What it has done, in an object its replies still reach once the item
    // is gone (see Magnifier.qml, which works the same way).
    property var did: ({loaded: false, inverted: false, over: false})

    Component.onCompleted: {
        did.steps = stepsOf(bus, did);
        did.steps.start();
    }

    Component.onDestruction: {
        did.over = true;
        did.steps.stop();
    }

    // The steps use only `bus`, `did` and locals: replies may run them
    // after the item is gone.
    function stepsOf(bus, did) {
        var name = Effects.INVERT_EFFECT;
        var shortcut = Effects.INVERT_SCREEN;
        var runsWith = Effects.effectRunsWith;
        var isActive = Effects.isActive;

        function failed(what) {
            return function () { console.log('Guided Access: inverter: ' + what + ' failed'); };
        }

        function effects(method, done, onFailure) {
            bus.call('org.kde.KWin', '/Effects', 'org.kde.kwin.Effects', method, [name], done, onFailure);
        }

        // done(active) once the effect's being active (activeEffects) is
        // `wanted`, read every 20 ms for at most 2 s: KWin runs an invoked
        // shortcut some time after the reply to invokeShortcut.
        function whenActive(wanted, done, reads) {
            bus.call('org.kde.KWin', '/Effects', 'org.freedesktop.DBus.Properties', 'Get',
                ['org.kde.kwin.Effects', 'activeEffects'], function (values) {
                    var active = isActive(values[0], name);
                    if (active === wanted || reads >= 100)
                        done(active);
                    else
                        bus.later(20, function () { whenActive(wanted, done, reads + 1); });
                }, function () { done(undefined); });
        }

        function toggle(then) {
            bus.call('org.kde.kglobalaccel', '/component/kwin', 'org.kde.kglobalaccel.Component', 'invokeShortcut',
                [shortcut], then, failed('invokeShortcut(' + shortcut + ')'));
        }

        function start() {
            bus.call('org.kde.KWin', '/Compositor', 'org.freedesktop.DBus.Properties', 'Get',
                ['org.kde.kwin.Compositing', 'compositingType'], function (values) {
                    if (did.over)
                        return;
                    if (runsWith(values[0]))
                        loadEffect();
                    else
                        console.log('Guided Access: inverter unavailable: KWin composites with "' + values[0] +
                            '", and its invert effect needs OpenGL; nothing changed');
                }, failed('reading how KWin composites (compositingType)'));
        }

        function loadEffect() {
            effects('isEffectLoaded', function (values) {
                if (did.over)
                    return;
                if (values[0] === true)
                    invert('already loaded');
                else
                    effects('loadEffect', loaded, failed('loadEffect'));
            }, failed('isEffectLoaded'));
        }

        function loaded(values) {
            if (values[0] !== true) {
                console.log('Guided Access: inverter unavailable: KWin did not load its invert effect; nothing changed');
                return;
            }
            if (did.over) {
                effects('unloadEffect');
                return;
            }
            did.loaded = true;
            invert('loaded here');
        }

        // A screen the person has inverted already stays as it is, and
        // did.inverted stays false so that the end leaves it too.
        function invert(how) {
            whenActive(true, function (active) {
                if (did.over)
                    return;
                if (active) {
                    console.log('Guided Access: inverter on (invert effect ' + how + ', inverting already: left as it is)');
                    return;
                }
                did.inverted = true;
                toggle(function () {
                    whenActive(true, function (now) {
                        console.log('Guided Access: inverter on (invert effect ' + how + '; ' +
                            (now ? 'screen inverted' : 'the effect did not become active') + ')');
                    }, 0);
                });
            }, 100);
        }

        function stop() {
            if (!did.inverted) {
                unloadIfLoadedHere();
                return;
            }
            toggle(function () { whenActive(false, unloadIfLoadedHere, 0); });
        }

        function unloadIfLoadedHere() {
            if (did.loaded)
                effects('unloadEffect');
            console.log('Guided Access: inverter off' + (did.inverted ? ', screen back to its colours' : '') +
                (did.loaded ? ', invert effect unloaded' : ''));
        }

        return {start: start, stop: stop};
    }
}
