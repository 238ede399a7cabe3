// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import GuidedAccessCore
import Testing

/// Assessment mode in the model: what a configuration switches off, who
/// ends it and how an administrator's end or Single App Mode interrupts it.
@Suite struct AssessmentModelTests {
    @Test("speech features: off unless allowed, but those on before are kept unless keep-accessibility is false (Apple's rule); the menu loses them")
    func speechFeatures() throws {
        try withTemporaryDirectory { directory in
            for (allows, keep, expectedOn) in [(false, true, true), (false, false, false), (true, false, true)] {
                var model = try makeModel(in: directory)
                _ = try model.setFeature(.speakScreen, enabled: true)
                let configuration = try AssessmentConfiguration(allowsAccessibilitySpeech: allows, keepAccessibility: keep)
                _ = try model.beginAssessment(app: "org.example.Exam", configuration: configuration, now: t0)
                #expect(model.featureValue(.speakScreen) == expectedOn, "allows \(allows), keep \(keep)")
                #expect(model.accessibilityShortcut.contains(.speakScreen) == false, "the default menu never offered it")
                _ = try model.end(now: at(1))
                #expect(model.featureValue(.speakScreen), "put back after the assessment")
                _ = try model.setFeature(.speakScreen, enabled: false)
            }
            var model = try makeModel(in: directory, config: ManagedConfig(accessibilityShortcut: [.zoom, .speakSelection]))
            _ = try model.beginAssessment(app: "org.example.Exam", configuration: AssessmentConfiguration(), now: t0)
            #expect(model.accessibilityShortcut == [.zoom], "speech is not offered unless allowed")
            #expect(model.systemRestrictions["notifications"] == .deny)
        }
    }

    @Test("only the app ends it with EndAssessment; an administrator's End interrupts it; Single App Mode takes over with an interruption")
    func whoEndsIt() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            let configuration = try AssessmentConfiguration(participants: ["org.example.Calc"], timeLimit: 60)
            #expect(try model.beginAssessment(app: "org.example.Exam", configuration: configuration, now: t0).contains(.assessmentBegan))
            #expect(model.mode == .assessment && model.alsoAllowed == ["org.example.Calc"] && model.assessment == configuration)
            #expect { try model.beginAssessment(app: "org.example.Exam", configuration: configuration, now: t0) } throws: {
                ($0 as? DomainError)?.name == "AlreadyActive"
            }
            #expect(model.isAssessmentOwner("org.example.Exam") && !model.isAssessmentOwner("org.example.Calc"))
            #expect { try model.endAssessment(requestedBy: "org.example.Calc", now: at(1)) } throws: { ($0 as? DomainError)?.name == "NotOwner" }
            #expect { try model.end(requestedBy: "org.example.Exam", now: at(1)) } throws: { ($0 as? DomainError)?.name == "PermissionDenied" }
            #expect { try model.passcodeChallenge(now: at(1)) } throws: { ($0 as? DomainError)?.name == "PermissionDenied" }
            #expect(try model.endAssessment(requestedBy: "org.example.Exam", now: at(2)).contains(.assessmentEnded))
            #expect(!model.enabled && model.assessment == nil)
            #expect { try model.endAssessment(requestedBy: "org.example.Exam", now: at(3)) } throws: { ($0 as? DomainError)?.name == "NotActive" }

            _ = try model.beginAssessment(app: "org.example.Exam", configuration: configuration, now: at(4))
            let ended = try model.end(now: at(5))
            #expect(ended.contains(.assessmentInterrupted(reason: "an administrator ended the assessment")) && ended.contains(.assessmentEnded))

            _ = try model.beginAssessment(app: "org.example.Exam", configuration: configuration, now: at(6))
            let takeover = try model.applyManagedConfig(ManagedConfig(singleAppMode: .init(app: "org.example.Kiosk")), now: at(7))
            #expect(takeover.contains(.assessmentEnded) && model.mode == .singleApp)
        }
    }

    @Test("time-limit: the assessment expires at its limit and stays locked until the app ends it")
    func timeLimit() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            _ = try model.beginAssessment(app: "org.example.Exam", configuration: AssessmentConfiguration(timeLimit: 60), now: t0)
            #expect(try model.tick(now: at(30)).contains(.timeExpired) == false)
            #expect(try model.tick(now: at(60)).contains(.timeExpired))
            #expect(model.sessionState == .expired && model.enabled && model.mode == .assessment)
            #expect { try model.passcodeChallenge(now: at(61)) } throws: { ($0 as? DomainError)?.name == "PermissionDenied" }
            #expect(try model.endAssessment(requestedBy: "org.example.Exam", now: at(62)).contains(.assessmentEnded))
        }
    }

    @Test("an enforcer no longer covering what the assessment relies on interrupts it: assessment always, screen-capture and clipboard only when denied")
    func enforcerDrops() throws {
        try withTemporaryDirectory { directory in
            var model = try makeModel(in: directory)
            #expect(model.assessmentInterruption(enforcer: "shell", lost: ["assessment"]) == nil, "no assessment: nothing to interrupt")
            _ = try model.beginAssessment(app: "org.example.Exam", configuration: try AssessmentConfiguration(allowsClipboard: true), now: t0)
            #expect(model.assessmentInterruption(enforcer: "shell", lost: ["clipboard", "touch"]) == nil, "the clipboard is allowed")
            #expect(model.assessmentInterruption(enforcer: "shell", lost: ["screen-capture"])
                    == .assessmentInterrupted(reason: "the enforcer shell could not stop a screen capture"))
            #expect(model.assessmentInterruption(enforcer: "shell", lost: ["assessment", "screen-capture"])
                    == .assessmentInterrupted(reason: "the enforcer shell no longer keeps the assessment on screen"))
        }
    }

    @Test("managed.json: AssessmentApplications is a list of app ids")
    func assessmentApplicationsInTheFile() throws {
        let config = try ManagedConfig.parse(Data(#"{"AssessmentApplications": ["org.example.Exam"]}"#.utf8), path: "managed.json")
        #expect(config.assessmentApplications == ["org.example.Exam"])
        #expect { try ManagedConfig.parse(Data(#"{"AssessmentApplications": "org.example.Exam"}"#.utf8), path: "m") } throws: {
            "\($0)".contains("a list of app ids")
        }
    }
}
