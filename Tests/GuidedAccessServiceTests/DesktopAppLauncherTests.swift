// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation
import GSettingsBridge
import GuidedAccessCore
import Testing

/// What `LaunchApp` starts: a program known by its path runs (alone, when
/// no installed desktop file runs it); what cannot be found is `Failed`,
/// naming the app.
@Suite("Desktop app launcher")
struct DesktopAppLauncherTests {
    @Test("A program by its path is started; a missing program or desktop file is Failed naming it")
    func launches() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("launcher-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = directory.appendingPathComponent("kiosk").path
        let mark = directory.appendingPathComponent("launched").path
        try "#!/bin/sh\necho launched > '\(mark)'\n".write(toFile: program, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program)

        try DesktopAppLauncher().launch(program)
        #expect(await eventually(timeout: .seconds(10)) { FileManager.default.fileExists(atPath: mark) })

        for app in [directory.appendingPathComponent("missing").path, "org.example.NotInstalled\(UUID().uuidString.prefix(8))"] {
            #expect {
                try DesktopAppLauncher().launch(app)
            } throws: { error in
                guard case DomainError.failed(let message) = error else { return false }
                return message.hasPrefix("cannot launch \(app):")
            }
        }
    }
}
