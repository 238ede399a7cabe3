// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

/// An applier over a dictionary, that records what the state file held
/// each time it was asked to write.
private final class RecordingApplier: SessionSettingsApplier, @unchecked Sendable {
    var values: [String: String] = ["notifications/show-banners": "true", "power-menu/disable-log-out": "false",
                                    "session/idle-delay": "300"]
    var stateFileAtApply: [String] = []
    let statePath: String

    init(statePath: String) { self.statePath = statePath }

    func source(of restriction: SystemRestriction) -> String {
        let settings = settings(for: DesktopDemand(denied: [restriction]))
        return settings.isEmpty ? "published" : "test:" + settings.joined(separator: ",")
    }

    func settings(for demand: DesktopDemand) -> [String] {
        demand.denied.flatMap { restriction -> [String] in
            switch restriction {
            case .notifications: ["notifications/show-banners"]
            case .powerMenu: ["power-menu/disable-log-out"]
            default: []
            }
        } + (demand.autoLock == nil ? [] : ["session/idle-delay"])
    }

    func originals(of settings: [String]) -> [String: SavedSetting] {
        Dictionary(uniqueKeysWithValues: settings.map { ($0, SavedSetting(userValue: values[$0])) })
    }

    func apply(_ demand: DesktopDemand) -> [String] {
        stateFileAtApply.append((try? String(contentsOfFile: statePath, encoding: .utf8)) ?? "")
        for id in settings(for: DesktopDemand(denied: demand.denied)) { values[id] = "denied" }
        if let seconds = demand.autoLock { values["session/idle-delay"] = "\(seconds)" }
        return []
    }

    func restore(_ originals: [String: SavedSetting]) -> [String] {
        for (id, saved) in originals { values[id] = saved.userValue }
        return []
    }

    func owns(_ setting: String) -> Bool { values.keys.contains(setting) }
}

@Suite("Model: system restrictions on the desktop")
struct DesktopSettingsModelTests {
    @Test("originals are on disk before the first write; End restores them and forgets them")
    func originalsBeforeWrites() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            let applier = RecordingApplier(statePath: StateStore(directory: directory).path)
            model.setSessionSettingsApplier(applier)
            #expect(model.systemRestrictionSources["keyboards"] == "published")
            #expect(model.systemRestrictionSources["notifications"] == "test:notifications/show-banners")

            _ = try model.start(app: "/usr/bin/kiosk", systemRestrictions: ["notifications": "deny"], now: t0)
            #expect(applier.values["notifications/show-banners"] == "true", "a change writes nothing itself")
            try model.carryOut(in: directory)
            #expect(applier.values["notifications/show-banners"] == "denied")
            #expect(applier.stateFileAtApply.count == 1)
            #expect(applier.stateFileAtApply.first?.contains("\"notifications/show-banners\"") == true)

            // Denying one more during the session saves its original too, first.
            _ = try model.setSystemRestrictions(["power-menu": "deny"])
            try model.carryOut(in: directory)
            #expect(applier.stateFileAtApply.last?.contains("\"power-menu/disable-log-out\"") == true)
            #expect(applier.values["power-menu/disable-log-out"] == "denied")

            _ = try model.end(now: at(10))
            try model.carryOut(in: directory)
            #expect(applier.values == ["notifications/show-banners": "true", "power-menu/disable-log-out": "false",
                                       "session/idle-delay": "300"])
            #expect(model.persistentState.desktopOriginals == nil)
        }
    }

    @Test("auto-lock: its settings' originals are saved before the write, put back at End; -1 writes nothing")
    func autoLockIsAppliedAndRestored() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            let applier = RecordingApplier(statePath: StateStore(directory: directory).path)
            model.setSessionSettingsApplier(applier)

            _ = try model.start(app: "/usr/bin/kiosk", autoLock: AutoLock.desktop, now: t0)
            try model.carryOut(in: directory)
            #expect(applier.values["session/idle-delay"] == "300", "the desktop's own auto-lock: nothing to write")
            #expect(model.persistentState.desktopOriginals == nil)
            _ = try model.end(now: at(1))
            try model.carryOut(in: directory)

            _ = try model.start(app: "/usr/bin/kiosk", autoLock: AutoLock.never, now: at(2))
            try model.carryOut(in: directory)
            #expect(applier.values["session/idle-delay"] == "0")
            #expect(applier.stateFileAtApply.last?.contains("\"session/idle-delay\"") == true)
            #expect(model.persistentState.desktopOriginals == ["session/idle-delay": SavedSetting(userValue: "300")])
            _ = try model.end(now: at(3))
            try model.carryOut(in: directory)
            #expect(applier.values["session/idle-delay"] == "300")
            #expect(model.persistentState.desktopOriginals == nil)
        }
    }

    @Test("a restart with saved originals and no session (crash during End) restores them")
    func restoreAfterCrashDuringEnd() throws {
        try withTemporaryDirectory { directory in
            var state = PersistentState()
            state.desktopOriginals = ["notifications/show-banners": SavedSetting(userValue: nil)]
            try StateStore(directory: directory).save(state)
            var model = try makeModel(in: directory)
            let applier = RecordingApplier(statePath: StateStore(directory: directory).path)
            applier.values["notifications/show-banners"] = "denied"
            model.setSessionSettingsApplier(applier)
            let settlement = try #require(model.desktopSettlement())
            _ = settlement.perform()
            let restored = model.settled(settlement)
            try StateStore(directory: directory).save(try #require(restored))
            #expect(applier.values["notifications/show-banners"] == nil, "reset to the default")
            #expect(try StateStore(directory: directory).load(now: t0).state.desktopOriginals == nil)
        }
    }
}
