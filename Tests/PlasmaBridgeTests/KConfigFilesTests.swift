// SPDX-License-Identifier: LGPL-2.1-or-later
@testable import PlasmaBridge
import Testing

/// An entry resolved as KConfig resolves it: the administrator's copies,
/// least important first, then the user's; `[$i]` stops the files after it.
@Suite("KConfig files")
struct KConfigFilesTests {
    static func snapshot(_ system: [String], user: String) -> KConfigSnapshot {
        KConfigSnapshot(system: system.enumerated().map { ("/etc/xdg\($0.offset)/kaccessrc", KConfigText($0.element)) }, user: KConfigText(user))
    }

    @Test("The user's entry wins over the administrator's; without one, the administrator's; without either, nothing")
    func userOverSystem() {
        let entry = Self.snapshot(["[Keyboard]\nStickyKeys=true\n"], user: "[Keyboard]\nStickyKeys=false\n").entry(group: "Keyboard", key: "StickyKeys")
        #expect(entry == KConfigEntry(value: "false", userValue: "false", systemValue: "true", lockedBy: nil))
        #expect(Self.snapshot(["[Keyboard]\nStickyKeys=true\n"], user: "").entry(group: "Keyboard", key: "StickyKeys").value == "true")
        #expect(Self.snapshot([], user: "").entry(group: "Keyboard", key: "StickyKeys") == KConfigEntry())
    }

    @Test("Immutable by its entry, its group or the whole file: the user's entry does not count, and the file is named")
    func immutable() {
        for system in ["[Keyboard]\nStickyKeys[$i]=true\n", "[Keyboard][$i]\nStickyKeys=true\n", "[$i]\n[Keyboard]\nStickyKeys=true\n"] {
            let entry = Self.snapshot([system], user: "[Keyboard]\nStickyKeys=false\n").entry(group: "Keyboard", key: "StickyKeys")
            #expect(entry.value == "true" && entry.lockedBy == "/etc/xdg0/kaccessrc" && entry.userValue == "false", "\(system)")
        }
        // An immutable group locks its other keys too, set or not; another group it does not.
        let group = Self.snapshot(["[Keyboard][$i]\nStickyKeys=true\n"], user: "[Keyboard]\nSlowKeys=true\n[Bell]\nVisibleBell=true\n")
        #expect(group.entry(group: "Keyboard", key: "SlowKeys") == KConfigEntry(value: nil, userValue: "true", systemValue: nil,
                                                                                lockedBy: "/etc/xdg0/kaccessrc"))
        #expect(group.entry(group: "Bell", key: "VisibleBell").lockedBy == nil)
        // The flag in the user's own file locks nothing.
        #expect(Self.snapshot([], user: "[Keyboard]\nStickyKeys[$i]=true\n").entry(group: "Keyboard", key: "StickyKeys").lockedBy == nil)
    }

    @Test("A more important administrator's copy overrides a less important one; the first immutable one wins")
    func cascade() {
        let system = ["[Keyboard]\nStickyKeys=false\n", "[Keyboard]\nStickyKeys=true\n"]
        #expect(Self.snapshot(system, user: "").entry(group: "Keyboard", key: "StickyKeys").value == "true")
        let locked = ["[Keyboard]\nStickyKeys[$i]=false\n", "[Keyboard]\nStickyKeys=true\n"]
        #expect(Self.snapshot(locked, user: "").entry(group: "Keyboard", key: "StickyKeys").value == "false")
    }

    @Test("XDG_CONFIG_DIRS: absolute entries in its order, /etc/xdg when unset or empty")
    func systemDirectories() {
        #expect(KConfigFiles.systemDirectories(from: nil) == ["/etc/xdg"])
        #expect(KConfigFiles.systemDirectories(from: "") == ["/etc/xdg"])
        #expect(KConfigFiles.systemDirectories(from: "/etc/xdg/xdg-plasma:relative:/etc/xdg") == ["/etc/xdg/xdg-plasma", "/etc/xdg"])
    }

    @Test("Each feature's value maps as KConfig reads booleans and Plasma's animation factor")
    func mappings() {
        for text in ["true", "True", "on", "yes", "1"] { #expect(KConfigFeatureMapping.flag.isOn(text), "\(text)") }
        for text in ["false", "0", "off", "no", ""] { #expect(!KConfigFeatureMapping.flag.isOn(text), "\(text)") }
        #expect(!KConfigFeatureMapping.flag.isOn(nil))
        #expect(KConfigFeatureMapping.onAtZero.isOn("0") && KConfigFeatureMapping.onAtZero.isOn("0.0"))
        #expect(!KConfigFeatureMapping.onAtZero.isOn("0.5") && !KConfigFeatureMapping.onAtZero.isOn(nil))
        #expect(PlasmaMappings.files == ["kaccessrc", "kdeglobals"])
    }
}

/// Nested groups (`[AC][SuspendAndShutdown]`), as PowerDevil's files have them.
@Suite("KConfig nested groups")
struct KConfigNestedGroupTests {
    let group = "AC\(KConfigText.nesting)SuspendAndShutdown"

    @Test("A nested group is read and written as its own group, never as its parent; a new one gets KConfig's header")
    func nested() {
        var config = KConfigText("[AC]\nPowerButtonAction=1\n\n[AC][SuspendAndShutdown]\nPowerButtonAction=16\n")
        #expect(config.value(group: "AC", key: "PowerButtonAction") == "1")
        #expect(config.value(group: group, key: "PowerButtonAction") == "16")
        config.set(group: group, key: "PowerButtonAction", to: "0")
        #expect(config.text == "[AC]\nPowerButtonAction=1\n\n[AC][SuspendAndShutdown]\nPowerButtonAction=0\n")
        var empty = KConfigText("")
        empty.set(group: "Battery\(KConfigText.nesting)SuspendAndShutdown", key: "PowerDownAction", to: "0")
        #expect(empty.text == "[Battery][SuspendAndShutdown]\nPowerDownAction=0\n")
        empty.set(group: "Battery\(KConfigText.nesting)SuspendAndShutdown", key: "PowerDownAction", to: nil)
        #expect(empty.text == "")
        #expect(KConfigText("[AC][SuspendAndShutdown][$i]\nPowerButtonAction=16\n").lookup(group: group, key: "PowerButtonAction")
                == ("16", true))
    }
}
