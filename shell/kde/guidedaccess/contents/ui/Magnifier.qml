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
    // What it has done, and the steps that undo it, in an object its
    // replies still reach once the item is gone: a reply that comes after
    // the end undoes its own step then.
    property var did: ({loaded: false, zoomed: false, over: false})

    Component.onCompleted: {
        did.steps = stepsOf(bus, did);
        did.steps.start();
    }

    // The unload waits for the zoom to be back at actual size. A script
    // that is going gets no replies (Bus.closed): it leaves the effect
    // loaded, at actual size, rather than have it save a zoom to start with.
    Component.onDestruction: {
        did.over = true;
        did.steps.stop();
    }

    // The steps, as functions that use only `bus`, `did` and locals: the
    // replies that run them may come after the item is gone, when its
    // properties and its own functions are not there any more.
    function stepsOf(bus, did) {
        var name = Effects.ZOOM_EFFECT;
        var magnification = Effects.MAGNIFICATION;
        var zoomInShortcut = Effects.ZOOM_IN;
        var actualSizeShortcut = Effects.ZOOM_ACTUAL_SIZE;
        var runsWith = Effects.effectRunsWith;
        var stepsFor = Effects.zoomSteps;
        var propertiesOf = Effects.effectProperties;

        function failed(what) {
            return function () { console.log('Guided Access: magnifier: ' + what + ' failed'); };
        }

        // A method of KWin's /Effects, on the zoom effect.
        function effects(method, done, onFailure) {
            bus.call('org.kde.KWin', '/Effects', 'org.kde.kwin.Effects', method, [name], done, onFailure);
        }

        // One of the effect's global shortcuts, through kglobalaccel: it
        // runs them while ShortcutBlock blocks their keys.
        function invoke(shortcut) {
            bus.call('org.kde.kglobalaccel', '/component/kwin', 'org.kde.kglobalaccel.Component', 'invokeShortcut',
                [shortcut], undefined, failed('invokeShortcut(' + shortcut + ')'));
        }

        // done(zoom) once the effect's zoom (its targetZoom) passes `test`,
        // read every 20 ms for at most 2 s: KWin takes an invoked shortcut
        // some time after the reply to invokeShortcut (its signal goes
        // round through the bus).
        function whenZoom(test, done, reads) {
            effects('supportInformation', function (values) {
                var zoom = propertiesOf(values[0]).targetZoom;
                if (test(zoom) || reads >= 100)
                    done(zoom);
                else
                    bus.later(20, function () { whenZoom(test, done, reads + 1); });
            }, function () { done(undefined); });
        }

        // Only where KWin composites with OpenGL: elsewhere a zoom would
        // leave the screen unpainted (KWin 6 loads the effect all the same).
        function start() {
            bus.call('org.kde.KWin', '/Compositor', 'org.freedesktop.DBus.Properties', 'Get',
                ['org.kde.kwin.Compositing', 'compositingType'], function (values) {
                    if (did.over)
                        return;
                    if (runsWith(values[0]))
                        loadEffect();
                    else
                        console.log('Guided Access: magnifier unavailable: KWin composites with "' + values[0] +
                            '", and its zoom effect needs OpenGL; nothing changed');
                }, failed('reading how KWin composites (compositingType)'));
        }

        // The effect loaded if it is not; did.loaded says we loaded it, so
        // that the end unloads only what the session brought.
        function loadEffect() {
            effects('isEffectLoaded', function (values) {
                if (did.over)
                    return;
                if (values[0] === true)
                    zoomIn('already loaded');
                else
                    effects('loadEffect', loaded, failed('loadEffect'));
            }, failed('isEffectLoaded'));
        }

        function loaded(values) {
            if (values[0] !== true) {
                console.log('Guided Access: magnifier unavailable: KWin did not load its zoom effect; nothing changed');
                return;
            }
            // The session ended while KWin loaded it: nothing else will
            // unload it, and it is still at actual size.
            if (did.over) {
                effects('unloadEffect');
                return;
            }
            did.loaded = true;
            zoomIn('loaded here');
        }

        // To at least `magnification`, from actual size (the steps go out
        // at once); a screen the person has zoomed in already is left as
        // it is, and did.zoomed stays false so that the end leaves it too.
        function zoomIn(how) {
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
                    invoke(zoomInShortcut);
                whenZoom(function (zoom) { return zoom >= magnification; }, function (zoom) {
                    console.log('Guided Access: magnifier on (zoom effect ' + how + '; zoomed in ' + steps +
                        ' step(s) to ' + zoom + ')');
                }, 0);
            }, failed('reading the zoom effect (supportInformation)'));
        }

        // Back to actual size if we zoomed in, and only then the effect
        // unloaded: it saves its zoom when it is unloaded, and would start
        // zoomed in the next time.
        function stop() {
            if (!did.zoomed) {
                unloadIfLoadedHere();
                return;
            }
            invoke(actualSizeShortcut);
            whenZoom(function (zoom) { return zoom === 1; }, unloadIfLoadedHere, 0);
        }

        // Only an effect this session loaded: one the person had on stays.
        function unloadIfLoadedHere() {
            if (did.loaded)
                effects('unloadEffect');
            console.log('Guided Access: magnifier off' + (did.zoomed ? ', back to actual size' : '') +
                (did.loaded ? ', zoom effect unloaded' : ''));
        }

        return {start: start, stop: stop};
    }
}
