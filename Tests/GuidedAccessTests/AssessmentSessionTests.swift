// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import DBusTesting
import Foundation
import GuidedAccess
import GuidedAccessTesting
import Locking
import Testing

/// `AssessmentSession` as an exam app uses it, and `guided-access assessment status`,
/// against the real daemon.
@Suite("AssessmentSession and guided-access assessment", .timeLimit(.minutes(2)))
struct AssessmentSessionTests {
    /// What the delegate heard, in order.
    final class Recorder: AssessmentSessionDelegate, @unchecked Sendable {
        let events = Locked<[String]>([])
        func assessmentSessionDidBegin(_ session: AssessmentSession) { events.withLock { $0.append("began") } }
        func assessmentSession(_ session: AssessmentSession, failedToBeginWithError error: GuidedAccessError) {
            events.withLock { $0.append("failed: \(error.serviceError?.shortName ?? "?")") }
        }
        func assessmentSession(_ session: AssessmentSession, wasInterruptedWithError error: GuidedAccessError) {
            events.withLock { $0.append("interrupted: \(error.message)") }
        }
        func assessmentSessionDidEnd(_ session: AssessmentSession) { events.withLock { $0.append("ended") } }
    }

    @Test("a listed app begins and ends; an administrator's End interrupts it; an unlisted app fails to begin; the CLI shows it",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func beginEndAndInterrupt() async throws {
        let fixture = try await ServiceFixture.start(polkit: false, managed: ["AssessmentApplications": [Binaries.selfExecutable]])
        defer { fixture.stop() }
        let recorder = Recorder()
        let configuration = AssessmentConfiguration(participants: ["org.example.Calculator"], allowsClipboard: true, timeLimit: 3600)
        let session = AssessmentSession(configuration: configuration, bus: .address(fixture.address))
        session.delegate = recorder
        await session.begin()
        #expect(session.isActive && recorder.events.withLock { $0 } == ["began"], "\(fixture.daemonLog())")

        var result = try await fixture.cli(["assessment", "status"])
        for expected in [Binaries.selfExecutable, "org.example.Calculator", "clipboard", "screen capture, notifications", "1h"] {
            #expect(result.stdout.contains(expected), "\(expected): \(result.stdout)")
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await fixture.cli(["assessment", "status", "--json"]).stdout.utf8)) as? [String: Any])
        #expect(json["active"] as? Bool == true && json["allowsClipboard"] as? Bool == true && json["allowsScreenCapture"] as? Bool == false)

        try await session.end()
        #expect(!session.isActive && recorder.events.withLock { $0 } == ["began", "ended"])
        result = try await fixture.cli(["assessment"])
        #expect(result.stdout.contains("No assessment is running"), "\(result.stdout)")

        // The enforcer that kept it leaves: interrupted, still locked.
        await session.begin()
        let shell = try fixture.admin()
        try await shell.registerEnforcer(name: "test-shell", enforcing: ["app-lock", "assessment"])
        shell.close()
        #expect(await eventually(timeout: .seconds(3)) { recorder.events.withLock { $0.count } == 4 })
        #expect(recorder.events.withLock { $0.last }?.hasPrefix("interrupted: the enforcer test-shell") == true, "\(recorder.events.withLock { $0 })")
        #expect(session.isActive)

        // The administrator's Single App Mode takes over: interrupted, then ended.
        try fixture.writeManagedConfig(["SingleAppMode": ["App": "org.example.Kiosk"]])
        #expect(await eventually(timeout: .seconds(3)) { recorder.events.withLock { $0.count } == 6 }, "\(fixture.daemonLog())")
        #expect(recorder.events.withLock { Array($0.suffix(2)) } == ["interrupted: the administrator's Single App Mode took over", "ended"])
        #expect(!session.isActive)

        // No longer listed (and the kiosk locked): it cannot begin.
        try fixture.writeManagedConfig([:])
        #expect(await eventually(timeout: .seconds(3)) { (try? await fixture.admin().status().isEnabled) == false })
        await session.begin()
        #expect(recorder.events.withLock { $0.last } == "failed: PermissionDenied")
    }

    @Test("Examples/python/exam_app.py: begins, prints what is off, hands in, hears AssessmentEnded; unlisted it cannot begin",
          .enabled(if: Requirements.canRunDaemon, .daemonReason))
    func pythonExamApp() async throws {
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        let fixture = try await ServiceFixture.start(polkit: false, managed: ["AssessmentApplications": [python]])
        defer { fixture.stop() }
        let app = [python, Project.root.appendingPathComponent("Examples/python/exam_app.py").path, "--address", fixture.address]
        let ran = try await ProcessRunner.run(app + ["--hand-in-after", "0.2"], timeout: .seconds(20))
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(ran.stdout.split(separator: "\n").map(String.init) == [
            "began: locked to this app and org.gnome.Calculator",
            "off: allows-accessibility-speech, allows-clipboard, allows-notifications, allows-screen-capture, allows-spell-check",
            "handed in", "ended",
        ], "\(ran.stdout)\(ran.stderr)")
        // Once managed.json no longer lists python (the daemon follows the file), it cannot begin.
        try fixture.writeManagedConfig([:])
        #expect(await eventually(timeout: .seconds(3)) {
            let refused = try? await ProcessRunner.run(app + ["--hand-in-after", "0.1"], timeout: .seconds(20))
            return refused?.status == 1 && refused?.stdout.contains("could not begin: org.guidedaccess.Error.PermissionDenied") == true
        })
    }
}
