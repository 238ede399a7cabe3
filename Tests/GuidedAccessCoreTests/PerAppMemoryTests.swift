// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("Model: presentation and auto-lock")
struct PresentationAndAutoLockTests {
    @Test func startPublishesThemAndEndPutsTheDefaultsBack() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            #expect(model.presentation == .asIs && model.autoLock == AutoLock.desktop)
            let changes = try model.start(app: "org.example.Kiosk", presentation: .fullscreen, autoLock: 600, now: t0)
            #expect(changes == [
                .statusChanged(enabled: true),
                .sessionPropertiesChanged([.enabled, .state, .app, .startedAt, .presentation, .autoLock, .mode]),
            ])
            #expect(model.presentation == .fullscreen && model.autoLock == 600)
            try model.carryOut(in: directory)
            let restarted = try makeModel(in: directory, now: at(1))
            #expect(restarted.presentation == .fullscreen && restarted.autoLock == 600, "kept in the state file")

            let ended = try model.end(now: at(2))
            #expect(ended.contains(.sessionPropertiesChanged([.enabled, .state, .app, .startedAt, .presentation, .autoLock, .mode])))
            #expect(model.presentation == .asIs && model.autoLock == AutoLock.desktop)
        }
    }

    @Test("auto-lock: -1, 0 and 1 s to a day pass; other negatives and longer are InvalidArgument",
          arguments: [(Int64(-1), true), (0, true), (1, true), (86_400, true),
                      (-2, false), (86_401, false), (.min, false), (.max, false)])
    func autoLockRange(_ seconds: Int64, _ accepted: Bool) throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            if accepted {
                _ = try model.start(app: "org.example.Kiosk", autoLock: seconds, now: t0)
                #expect(model.autoLock == seconds)
            } else {
                #expect { try model.start(app: "org.example.Kiosk", autoLock: seconds, now: t0) } throws: {
                    let error = $0 as? DomainError
                    return error?.name == "InvalidArgument" && error?.message.contains("\(seconds)") == true
                }
                #expect(!model.enabled)
            }
        }
    }

    @Test func presentationNamesTheAllowedValues() throws {
        #expect(try Presentation(parsing: "maximized") == .maximized)
        #expect { try Presentation(parsing: "stretched") } throws: {
            let message = ($0 as? DomainError)?.message ?? ""
            return message.contains("stretched") && message.contains("as-is, maximized, fullscreen")
        }
    }

    @Test("a state file written before presentation, auto-lock and the per-app memory existed still loads")
    func olderStateFileLoads() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.start(app: "org.example.Kiosk", timeLimit: 600, systemRestrictions: ["touch": "deny"], now: t0)
            try model.carryOut(in: directory)
            // The same file as the previous version wrote it: without the new keys.
            let path = StateStore(directory: directory).path
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            #expect(json["lastOptions"] != nil)
            json["lastOptions"] = nil
            var session = try #require(json["session"] as? [String: Any])
            #expect(session["presentation"] as? String == "as-is" && session["autoLock"] as? Int == -1)
            session["presentation"] = nil
            session["autoLock"] = nil
            json["session"] = session
            try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))

            let restarted = try makeModel(in: directory, now: at(1))
            #expect(restarted.startupWarnings.isEmpty, "\(restarted.startupWarnings)")
            #expect(restarted.enabled && restarted.app == "org.example.Kiosk" && restarted.timeLimit == 600)
            #expect(restarted.presentation == .asIs && restarted.autoLock == AutoLock.desktop)
            #expect(restarted.lastOptions(for: "org.example.Kiosk") == nil)
        }
    }
}

@Suite("Model: per-app memory (GetLastOptions)")
struct PerAppMemoryTests {
    @Test("the options of the last Start, normalised and complete; an app that locks itself changes nothing")
    func lastOptionsOfAStart() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            #expect(model.lastOptions(for: "org.example.Kiosk") == nil)
            let region = try Region(x: 10, y: 20, width: 300, height: 200)
            _ = try model.start(app: "org.example.Kiosk", timeLimit: 900, systemRestrictions: ["touch": "deny"],
                                disabledRegions: [region], restrictions: ["com.example.kiosk.buy": "deny"],
                                presentation: .maximized, autoLock: 0, now: t0)
            let last = try #require(model.lastOptions(for: "org.example.Kiosk"))
            #expect(last.timeLimit == 900)
            #expect(last.systemRestrictions == SystemRestriction.allAllowed.merging(["touch": .deny]) { $1 })
            #expect(last.systemRestrictions.count == 8)
            #expect(last.disabledRegions == [region])
            #expect(last.restrictions == ["com.example.kiosk.buy": .deny])
            #expect(last.presentation == .maximized)
            #expect(last.autoLock == 0)
            _ = try model.end(now: at(1))
            #expect(model.lastOptions(for: "org.example.Kiosk") == last, "kept after the session")

            _ = try model.start(app: "org.example.Kiosk", requestedBy: "org.example.Kiosk", now: at(2))
            _ = try model.end(requestedBy: "org.example.Kiosk", now: at(3))
            #expect(model.lastOptions(for: "org.example.Kiosk") == last, "RequestSession chose no options")

            _ = try model.start(app: "org.example.Kiosk", now: at(4))
            #expect(model.lastOptions(for: "org.example.Kiosk") == SessionOptions(), "the last Start wins, even without options")
            try model.carryOut(in: directory)
            #expect(try makeModel(in: directory, now: at(5)).lastOptions(for: "org.example.Kiosk") == SessionOptions())
        }
    }

    @Test("a refused Start remembers nothing")
    func refusedStartIsNotRemembered() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory, config: ManagedConfig(restrictions: ["com.example.forced": .deny]))
            #expect(throws: DomainError.self) {
                try model.start(app: "org.example.Kiosk", restrictions: ["com.example.forced": "allow"], now: t0)
            }
            #expect(model.lastOptions(for: "org.example.Kiosk") == nil)
            #expect(model.persistentState.lastOptions == nil)
        }
    }

    @Test("past 64 apps the least recently locked is forgotten; locking an app again makes it the most recent")
    func leastRecentlyLockedIsDropped() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            for index in 0..<PerAppMemory.maximumApps {
                _ = try model.start(app: "org.example.App\(index)", timeLimit: UInt64(index + 1), now: at(Double(2 * index)))
                _ = try model.end(now: at(Double(2 * index + 1)))
            }
            // App0 is locked again, so App1 is now the least recent.
            _ = try model.start(app: "org.example.App0", timeLimit: 7, now: at(200))
            _ = try model.end(now: at(201))
            _ = try model.start(app: "org.example.New", now: at(202))
            #expect(model.lastOptions(for: "org.example.App1") == nil)
            #expect(model.lastOptions(for: "org.example.App0")?.timeLimit == 7)
            #expect(model.lastOptions(for: "org.example.App2")?.timeLimit == 3)
            #expect(model.lastOptions(for: "org.example.New") != nil)
            try model.carryOut(in: directory)
            let onDisk = try #require(try StateStore(directory: directory).load(now: t0).state.lastOptions)
            #expect(onDisk.count == PerAppMemory.maximumApps)
            #expect(onDisk.first?.app == "org.example.New" && onDisk.dropFirst().first?.app == "org.example.App0")
        }
    }

    @Test func restrictionsArePerAppCapped() {
        var memory = PerAppMemory()
        var options = SessionOptions()
        options.restrictions = Dictionary(uniqueKeysWithValues: (0..<300).map {
            (String(format: "com.example.r%03d", $0), RestrictionState.deny)
        })
        memory.remember(options, for: "org.example.Kiosk")
        let kept = memory.options(for: "org.example.Kiosk")?.restrictions ?? [:]
        #expect(kept.count == PerAppMemory.maximumRestrictionsPerApp)
        #expect(kept["com.example.r000"] == .deny && kept["com.example.r299"] == nil)
    }

    @Test("a hand-edited file with repeated or too many apps is trimmed on load")
    func loadTrims() {
        let entries = (0..<70).map { PerAppMemory.Entry(app: "app\($0 % 68)", options: SessionOptions()) }
        let memory = PerAppMemory(entries)
        #expect(memory.entries.count == PerAppMemory.maximumApps)
        #expect(Set(memory.entries.map(\.app)).count == PerAppMemory.maximumApps)
    }
}

@Suite("Session options")
struct SessionOptionsTests {
    @Test("features: parsed by name once, an unknown name refused by name, saved by name, absent in an older file")
    func features() throws {
        let options = try SessionOptions(features: ["Zoom": true, "ReduceMotion": false])
        #expect(options.features == [.zoom: true, .reduceMotion: false])
        #expect(throws: DomainError.self) { try SessionOptions(features: ["Teleport": true]) }

        let saved = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        #expect(saved.contains(#""features":{"#) && saved.contains(#""Zoom":true"#), "\(saved)")
        #expect(try JSONDecoder().decode(SessionOptions.self, from: Data(saved.utf8)) == options)

        var older = try #require(try JSONSerialization.jsonObject(with: Data(saved.utf8)) as? [String: Any])
        older["features"] = nil
        let decoded = try JSONDecoder().decode(SessionOptions.self, from: JSONSerialization.data(withJSONObject: older))
        #expect(decoded.features.isEmpty && decoded.timeLimit == options.timeLimit)
    }
}
