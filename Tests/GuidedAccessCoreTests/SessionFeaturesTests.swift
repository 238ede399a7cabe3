// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import GuidedAccessCore
import Testing

/// Features a session sets and the person toggles: put back exactly at the
/// end, from the service's own store and from the desktop's, across restarts.
@Suite struct SessionFeaturesTests {
    /// A desktop store in memory: what it holds is what it reports.
    final class MemoryStore: FeatureValueSource, @unchecked Sendable {
        var values: [Feature: Bool] = [:]
        func value(of feature: Feature) -> Bool { values[feature] ?? false }
        func set(_ enabled: Bool, for feature: Feature) throws { values[feature] = enabled }
        func sourceDescription(of feature: Feature) -> String { "memory:\(feature.name)" }
    }

    static func options(features: [String: Bool] = [:], shortcut: [String]? = nil, alsoAllowed: [String] = []) throws -> SessionOptions {
        try SessionOptions(alsoAllowed: alsoAllowed, accessibilityShortcut: shortcut, features: features)
    }

    @Test("the session's features and the person's toggles are put back at the end, across a restart in between")
    func putBackAcrossARestart() throws {
        try withTemporaryDirectory { directory in
            let store = MemoryStore()
            store.values[.screenReader] = true
            var model = try makeModel(in: directory)
            model.setFeatureSource(store, for: [.zoom, .screenReader])
            _ = try model.start(app: "org.example.Kiosk", options: Self.options(features: ["Zoom": true, "BoldText": true]), now: t0)
            try model.carryOut(in: directory)
            #expect(store.values[.zoom] == true && model.featureValue(.boldText))

            // The daemon restarts: what must be put back was saved with the session.
            model = try makeModel(in: directory)
            model.setFeatureSource(store, for: [.zoom, .screenReader])
            _ = try model.toggleAccessibilityFeature(named: "ScreenReader", enabled: false)
            _ = try model.toggleAccessibilityFeature(named: "Zoom", enabled: false)
            _ = try model.toggleAccessibilityFeature(named: "Zoom", enabled: true)
            try model.carryOut(in: directory)
            #expect(store.values[.screenReader] == false && store.values[.zoom] == true)

            let ended = try model.end(now: at(5))
            #expect(ended.contains(.featureChanged(.boldText, false)), "the service's own feature is back at once")
            try model.carryOut(in: directory)
            #expect(store.values[.zoom] == false && store.values[.screenReader] == true && !model.featureValue(.boldText))
            #expect(model.persistentState.featureOriginals == nil, "nothing is left to put back")
        }
    }

    @Test("a toggle needs a session and a feature the shortcut offers; the default shortcut is DESIGN.md's, managed.json's replaces it")
    func toggleChecks() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory, config: ManagedConfig(lockedFeatures: [.invertColors: false]))
            #expect { try model.toggleAccessibilityFeature(named: "Zoom", enabled: true) } throws: { ($0 as? DomainError)?.name == "NotActive" }
            _ = try model.start(app: "org.example.Kiosk", options: SessionOptions(), now: t0)
            #expect(model.accessibilityShortcut == [.screenReader, .zoom, .invertColors, .largeText, .onScreenKeyboard])
            #expect { try model.toggleAccessibilityFeature(named: "BoldText", enabled: true) } throws: {
                ($0 as? DomainError)?.name == "PermissionDenied" && "\($0)".contains("accessibility shortcut")
            }
            #expect { try model.toggleAccessibilityFeature(named: "InvertColors", enabled: true) } throws: {
                ($0 as? DomainError)?.name == "PermissionDenied" && "\($0)".contains("managed.json")
            }
            #expect { try model.toggleAccessibilityFeature(named: "Teleport", enabled: true) } throws: {
                ($0 as? DomainError)?.name == "UnknownFeature"
            }
            #expect(try model.toggleAccessibilityFeature(named: "Zoom", enabled: true) == [.featureChanged(.zoom, true)])
            _ = try model.end(now: at(1))

            var managed = try makeModel(in: directory, config: ManagedConfig(accessibilityShortcut: [.zoom]))
            _ = try managed.start(app: "org.example.Kiosk", options: SessionOptions(), now: t0)
            #expect(managed.accessibilityShortcut == [.zoom])
            _ = try managed.end(now: at(1))
            _ = try managed.start(app: "org.example.Kiosk", options: Self.options(shortcut: ["ScreenReader"]), now: t0)
            #expect(managed.accessibilityShortcut == [.screenReader], "Start's own list wins")
        }
    }

    @Test("also-allowed: ids normalised and checked, repeats and the app itself dropped; a relative path or a bad feature is refused")
    func alsoAllowedAndBadInput() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            let options = try Self.options(alsoAllowed: ["org.example.Calculator", "org.example.Kiosk", "org.example.Calculator"])
            _ = try model.start(app: "org.example.Kiosk", options: options, now: t0)
            #expect(model.alsoAllowed == ["org.example.Calculator"] && model.mode == .guided)
            #expect { try Self.options(alsoAllowed: ["bin/calc"]) } throws: { "\($0)".contains("also-allowed") }
            #expect { try Self.options(features: ["Teleport": true]) } throws: { ($0 as? DomainError)?.name == "UnknownFeature" }
            #expect { try Self.options(shortcut: ["Teleport"]) } throws: { ($0 as? DomainError)?.name == "UnknownFeature" }
        }
    }

    @Test("Single App Mode: started from the policy, refused to End and the passcode, moved by a new policy, ended when it goes")
    func singleAppMode() throws {
        try withTemporaryDirectory { directory in
            let policy = ManagedConfig(singleAppMode: .init(app: "org.example.Kiosk", options: try Self.options(features: ["BoldText": true])))
            var model = try makeModel(in: directory, config: policy)
            let started = try model.applyManagedConfig(policy, now: t0)
            #expect(started.contains(.statusChanged(enabled: true)) && model.mode == .singleApp && model.featureValue(.boldText))
            #expect(try model.applyManagedConfig(policy, now: at(1)).isEmpty, "the same policy again changes nothing")
            #expect { try model.end(now: at(2)) } throws: { ($0 as? DomainError)?.name == "PermissionDenied" && "\($0)".contains("managed.json") }
            #expect { try model.passcodeChallenge(now: at(2)) } throws: { ($0 as? DomainError)?.name == "PermissionDenied" }

            let moved = ManagedConfig(singleAppMode: .init(app: "org.example.Other"))
            _ = try model.applyManagedConfig(moved, now: at(3))
            #expect(model.app == "org.example.Other" && model.mode == .singleApp && !model.featureValue(.boldText))
            _ = try model.applyManagedConfig(ManagedConfig(), now: at(4))
            #expect(!model.enabled && model.mode == nil)
        }
    }

    @Test("Without a session AccessibilityShortcut is what a Start without its own list offers: managed.json's, else the default; a new policy announces it")
    func shortcutWithoutASession() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            #expect(model.accessibilityShortcut == Feature.defaultShortcut)
            let changes = try model.applyManagedConfig(ManagedConfig(accessibilityShortcut: [.zoom]), now: t0)
            #expect(model.accessibilityShortcut == [.zoom])
            #expect(changes.contains(.sessionPropertiesChanged([.accessibilityShortcut])))
            _ = try model.start(app: "org.example.App", options: try Self.options(shortcut: ["ScreenReader"]), now: at(1))
            #expect(model.accessibilityShortcut == [.screenReader], "the session's own list")
            _ = try model.end(now: at(2))
            #expect(model.accessibilityShortcut == [.zoom])
        }
    }

    @Test("managed.json: SingleAppMode takes Start's options by their keys; without App, or with an unknown option, it names the problem")
    func singleAppModeInTheFile() throws {
        let good = #"{"SingleAppMode": {"App": "org.example.Kiosk", "Options": {"time-limit": 60, "also-allowed": ["org.example.Calc"], "#
            + #""disabled-regions": [[0, 0, 10, 10]], "accessibility-shortcut": ["Zoom"], "features": {"Zoom": true}}}, "#
            + #""AccessibilityShortcut": ["ScreenReader"]}"#
        let config = try ManagedConfig.parse(Data(good.utf8), path: "managed.json")
        let mode = try #require(config.singleAppMode)
        #expect(mode.app == "org.example.Kiosk" && mode.options.timeLimit == 60 && mode.options.alsoAllowed == ["org.example.Calc"])
        #expect(mode.options.disabledRegions.count == 1 && mode.options.features == [.zoom: true])
        #expect(config.accessibilityShortcut == [.screenReader])
        #expect(try ManagedConfig.parse(JSONEncoder().encode(config), path: "again") == config, "written as read")
        for (text, problem) in [
            (#"{"SingleAppMode": {"Options": {}}}"#, "lacks App"),
            (#"{"SingleAppMode": {"App": "a.b", "Options": {"interactive": true}}}"#, "unknown key \"interactive\""),
            (#"{"SingleAppMode": {"App": "a.b", "Options": {"disabled-regions": [[1, 2]]}}}"#, "[x, y, width, height]"),
            (#"{"AccessibilityShortcut": ["Teleport"]}"#, "Teleport"),
        ] {
            #expect { try ManagedConfig.parse(Data(text.utf8), path: "managed.json") } throws: { "\($0)".contains(problem) }
        }
    }
}
