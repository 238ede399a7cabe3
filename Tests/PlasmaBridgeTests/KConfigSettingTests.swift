// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
@testable import PlasmaBridge
import Testing

/// The user's kwinrc entry that turns the KWin script off, as KDE's
/// settings write it, is removed before KWin is asked to load its scripts;
/// everything else in the file stays as it was.
@Suite("KConfig setting that turns an enforcer off")
struct KConfigSettingTests {
    let setting = KConfigSetting.kwinScript(in: "/nonexistent")

    @Test("Each spelling of false in [Plugins] is removed, with its flags; the rest of the file is kept byte for byte")
    func removesFalse() {
        for value in ["false", "False", "0", "off", "no", " false "] {
            let text = "[Desktops]\nNumber=2\n\n[Plugins]\nblurEnabled=true\nguidedaccessEnabled=\(value)\nzoomEnabled=false\n"
            #expect(setting.removingFalse(from: text) == "[Desktops]\nNumber=2\n\n[Plugins]\nblurEnabled=true\nzoomEnabled=false\n",
                    "value \(value)")
        }
        let flagged = "[Plugins][$i]\nguidedaccessEnabled[$i]=false\n[Other]\nx=1"
        #expect(setting.removingFalse(from: flagged) == "[Plugins][$i]\n[Other]\nx=1")
    }

    @Test("Nothing to change: true, another group, a nested group, a comment, another key, no group at all")
    func leavesTheRest() {
        for text in [
            "[Plugins]\nguidedaccessEnabled=true\n",
            "[Script-guidedaccess]\nguidedaccessEnabled=false\n",
            "[Plugins][Sub]\nguidedaccessEnabled=false\n",
            "[Plugins]\n# guidedaccessEnabled=false\n",
            "[Plugins]\nguidedaccessEnabledOld=false\n",
            "guidedaccessEnabled=false\n",
            "",
        ] {
            #expect(setting.removingFalse(from: text) == nil, "\(text)")
        }
    }

    @Test("In a directory: the file is rewritten only when it said false; a missing file is nothing to do")
    func inDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kconfig-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let setting = KConfigSetting.kwinScript(in: directory)
        #expect(try setting.removeOff() == false)
        let path = "\(directory)/kwinrc"
        try "[Plugins]\nguidedaccessEnabled=false\nblurEnabled=true\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try setting.removeOff() == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "[Plugins]\nblurEnabled=true\n")
        #expect(try setting.removeOff() == false)
    }
}
