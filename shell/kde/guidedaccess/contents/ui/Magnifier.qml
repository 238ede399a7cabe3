// SPDX-License-Identifier: GPL-2.0-or-later
// The session's Zoom (Features1.Zoom) on screen, for as long as this item
// exists. The daemon keeps Zoom in GNOME's setting, which nothing on Plasma
// reads; Plasma's magnifier is KWin's zoom effect. The effect is loaded if
// it is not, and the screen zoomed in to at least Effects.MAGNIFICATION
// through the effect's own global shortcuts, invoked through kglobalaccel
// (which runs them while ShortcutBlock blocks their keys); a screen the
// person has zoomed in already stays as it is. On destruction: back to
// actual size if it zoomed in, and only once the effect is there (it saves
// its zoom when it is unloaded, and would start zoomed the next time) the
// effect unloaded if it loaded it. The effect draws with OpenGL only: where
// KWin composites otherwise (KWin 6 loads it there all the same, and a
// zoom would leave the screen unpainted) it says so in the log and changes
// nothing.
import QtQuick 2.15
import "../code/effects.js" as Effects

Item {
    id: magnifier

    property Bus bus
    // What it has done, and the calls that undo it, in an object its
    // replies still reach once the item is gone: a reply that comes after
    // the end undoes its own step then.
    property var did: ({loaded: false, zoomed: false, over: false})

    Component.onCompleted: {
        // Only locals in the replies: they may come after the item is gone.
        var bus = magnifier.bus;
        var did = magnifier.did;
        var name = Effects.ZOOM_EFFECT;
        var magnification = Effects.MAGNIFICATION;
        var stepsFor = Effects.zoomSteps;
        var propertiesOf = Effects.effectProperties;
        var effects = function (method, done, failed) {
            bus.call('org.kde.KWin', '/Effects', 'org.kde.kwin.Effects', method, [name], done, failed);
        };
        var failed = function (what) {
            return function () { console.log('Guided Access: magnifier: ' + what + ' failed'); };
        };
        var invoke = function (shortcut) {
            bus.call('org.kde.kglobalaccel', '/component/kwin', 'org.kde.kglobalaccel.Component', 'invokeShortcut',
                [shortcut], undefined, failed('invokeShortcut(' + shortcut + ')'));
        };
        // done(zoom) once the effect's zoom (its targetZoom) passes `test`,
        // read every 20 ms for at most 2 s: KWin takes an invoked shortcut
        // some time after the reply to invokeShortcut (its signal goes
        // round through the bus).
        var whenZoom = function (test, done, reads) {
            effects('supportInformation', function (values) {
                var zoom = propertiesOf(values[0]).targetZoom;
                if (test(zoom) || reads >= 100)
                    done(zoom);
                else
                    bus.later(20, function () { whenZoom(test, done, reads + 1); });
            }, function () { done(undefined); });
        };
        did.effects = effects;
        did.invoke = invoke;
        did.whenZoom = whenZoom;
        // Zooms in from actual size; the steps go out at once.
        var zoom = function (how) {
            effects('supportInformation', function (values) {
                if (did.over)
                    return;
                var before = propertiesOf(values[0]);
                if (before.targetZoom > 1) {
                    console.log('Guided Access: magnifier on (zoom effect ' + how + ', zoomed to ' + before.targetZoom +
                        ' already: left as it is)');
                    return;
                }
                var steps = stepsFor(before.zoomFactor);
                did.zoomed = true;
                for (var i = 0; i < steps; i++)
                    invoke(Effects.ZOOM_IN);
                whenZoom(function (zoom) { return zoom >= magnification; }, function (zoom) {
                    console.log('Guided Access: magnifier on (zoom effect ' + how + '; zoomed in ' + steps +
                        ' step(s) to ' + zoom + ')');
                }, 0);
            }, failed('reading the zoom effect (supportInformation)'));
        };
        var start = function () {
            effects('isEffectLoaded', function (values) {
                if (did.over)
                    return;
                if (values[0] === true) {
                    zoom('already loaded');
                    return;
                }
                effects('loadEffect', function (values) {
                    if (values[0] !== true) {
                        console.log('Guided Access: magnifier unavailable: KWin did not load its zoom effect; ' +
                            'nothing changed');
                        return;
                    }
                    if (did.over) {
                        effects('unloadEffect');
                        return;
                    }
                    did.loaded = true;
                    zoom('loaded here');
                }, failed('loadEffect'));
            }, failed('isEffectLoaded'));
        };
        bus.call('org.kde.KWin', '/Compositor', 'org.freedesktop.DBus.Properties', 'Get',
            ['org.kde.kwin.Compositing', 'compositingType'], function (values) {
                if (did.over)
                    return;
                if (Effects.zoomRunsWith(values[0]))
                    start();
                else
                    console.log('Guided Access: magnifier unavailable: KWin composites with "' + values[0] +
                        '", and its zoom effect needs OpenGL; nothing changed');
            }, failed('reading how KWin composites (compositingType)'));
    }

    // The unload waits for the zoom to be back at actual size. A script
    // that is going gets no replies (Bus.closed): it leaves the effect
    // loaded, at actual size, rather than have it save a zoom to start with.
    Component.onDestruction: {
        var did = magnifier.did;
        did.over = true;
        var unload = function () {
            if (did.loaded)
                did.effects('unloadEffect');
            console.log('Guided Access: magnifier off' + (did.zoomed ? ', back to actual size' : '') +
                (did.loaded ? ', zoom effect unloaded' : ''));
        };
        if (!did.zoomed) {
            unload();
            return;
        }
        did.invoke(Effects.ZOOM_ACTUAL_SIZE);
        did.whenZoom(function (zoom) { return zoom === 1; }, unload, 0);
    }
}
