// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccessContract
import GuidedAccessCore
import GuidedAccessTesting
@testable import PlasmaBridge
import Locking
import Testing

/// KDE's configuration text changed entry by entry, every other byte kept.
@Suite("KConfig text")
struct KConfigTextTests {
    @Test("A value is read from its group, the last entry winning; flags and locales are not part of the key")
    func reads() {
        let config = KConfigText("Top=1\n[TabBox]\nBorderActivate=1\n# BorderActivate=2\nBorderActivate[$i] = 7\n[TabBox][Sub]\nBorderActivate=3\n")
        #expect(config.value(group: "TabBox", key: "BorderActivate") == "7")
        #expect(config.value(group: "TabBox", key: "Top") == nil)
        #expect(config.value(group: "ElectricBorders", key: "BorderActivate") == nil)
    }

    @Test("Set replaces the first entry and drops the others; a new key goes at its group's end, a new group at the file's")
    func sets() {
        var config = KConfigText("[A]\nx=1\nx[$i]=2\n\n[B]\ny=1\n")
        config.set(group: "A", key: "x", to: "3")
        config.set(group: "A", key: "z", to: "4")
        config.set(group: "C", key: "w", to: "5")
        #expect(config.text == "[A]\nx=3\nz=4\n\n[B]\ny=1\n\n[C]\nw=5\n")
    }

    @Test("Setting and then removing what was not there gives back the same bytes, whatever the file looked like")
    func roundTrip() {
        for text in ["", "[A]\nx=1\n", "a=b\n\n[B]\n\ny=2\n\n[C]\nz=3\n", "[TabBox]\nLayoutName=big\n"] {
            var config = KConfigText(text)
            for (group, key) in [("TabBox", "BorderActivate"), ("C", "new"), ("New", "one"), ("New", "two")] {
                config.set(group: group, key: key, to: "9")
            }
            #expect(config.value(group: "New", key: "two") == "9")
            for (group, key) in [("TabBox", "BorderActivate"), ("C", "new"), ("New", "one"), ("New", "two")] {
                config.set(group: group, key: key, to: nil)
            }
            #expect(config.text == text, "\(text.debugDescription)")
        }
    }
}

/// A session switches KWin's screen edges off through the user's kwinrc and
/// puts the user's own entries back at its end, across a daemon crash.
@Suite("KWin screen edges", .timeLimit(.minutes(1)))
struct KWinScreenEdgesTests {
    static let userKwinrc = "[Desktops]\nNumber=2\n\n[ElectricBorders]\nTopLeft=ShowDesktop\n\n[TabBox]\nBorderActivate=1\nLayoutName=compact\n"

    @Test("During a session every edge entry says none and KWin is told to reconfigure; a corner turned on while the daemon was killed is off again at its restart; after End kwinrc is the user's again byte for byte; a change the user made between sessions is what the next one puts back",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func edgesOffForTheSession() async throws {
        var harness = EnforcerRevivalTests.selfLocking
        harness.startDaemon = false
        harness.plasma = 6
        try await withHarness(harness) { h in
            let kwinrc = h.desktop.configHome.appendingPathComponent("kwinrc")
            try Self.userKwinrc.write(to: kwinrc, atomically: true, encoding: .utf8)
            try await h.startDaemon()
            let kwin = try await CountedMethod(address: h.address, name: "org.kde.KWin", path: "/KWin", interface: "org.kde.KWin",
                                                 member: "reconfigure")
            defer { kwin.close() }

            try await EnforcerRevivalTests.startSession(h)
            let during = KConfigText(try String(contentsOf: kwinrc, encoding: .utf8))
            var session = DesktopDemand()
            session.sessionRuns = true
            for entry in KWinScreenEdges.entries {
                #expect(during.value(group: entry.group, key: entry.key) == entry.value(session), "\(entry.group)/\(entry.key)")
            }
            #expect(during.value(group: "TabBox", key: "LayoutName") == "compact")
            #expect(await eventually(timeout: .seconds(5)) { kwin.calls == 1 }, "reconfigure calls: \(kwin.calls)")

            // Killed; meanwhile something turns a corner back on. The restarted
            // daemon switches it off again before it is on the bus, and tells KWin once it is.
            try await h.killDaemon()
            let edgesOff = KConfigText(try String(contentsOf: kwinrc, encoding: .utf8))
            var loosened = edgesOff
            loosened.set(group: "ElectricBorders", key: "TopLeft", to: "KRunner")
            try loosened.text.write(to: kwinrc, atomically: true, encoding: .utf8)
            try await h.startDaemon()
            #expect(KConfigText(try String(contentsOf: kwinrc, encoding: .utf8)) == edgesOff)
            #expect(await eventually(timeout: .seconds(5)) { kwin.calls == 2 }, "reconfigure calls: \(kwin.calls)")
            _ = try await h.connect().ga(.session, "RequestSession", [.bool(false), options([:])])
            #expect(try String(contentsOf: kwinrc, encoding: .utf8) == Self.userKwinrc)
            #expect(await eventually(timeout: .seconds(5)) { kwin.calls == 3 }, "reconfigure calls: \(kwin.calls)")

            // The user changes a corner between sessions, as System Settings would.
            let changed = Self.userKwinrc.replacingOccurrences(of: "TopLeft=ShowDesktop", with: "TopLeft=KRunner")
            try changed.write(to: kwinrc, atomically: true, encoding: .utf8)
            try await EnforcerRevivalTests.startSession(h)
            _ = try await h.connect().ga(.session, "RequestSession", [.bool(false), options([:])])
            #expect(try String(contentsOf: kwinrc, encoding: .utf8) == changed)
        }
    }

    @Test("Not a KDE Plasma session: a session writes no kwinrc",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func noKwinrcNoWrites() async throws {
        try await withHarness(EnforcerRevivalTests.selfLocking) { h in
            try await EnforcerRevivalTests.startSession(h)
            #expect(!FileManager.default.fileExists(atPath: h.desktop.configHome.appendingPathComponent("kwinrc").path))
            _ = try await h.connect().ga(.session, "RequestSession", [.bool(false), options([:])])
        }
    }
}
