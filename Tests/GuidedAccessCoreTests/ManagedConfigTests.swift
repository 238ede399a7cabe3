// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import Testing
@testable import GuidedAccessCore

@Suite("Managed config")
struct ManagedConfigTests {
    @Test func parsesAllKeys() throws {
        let json = """
            {"AllowedApplications": ["org.example.Kiosk"],
             "AdminApplications": ["org.example.KioskSetup"],
             "Restrictions": {"com.example.app.purchase": "deny"},
             "LockedFeatures": {"Zoom": true}}
            """
        let config = try ManagedConfig.parse(Data(json.utf8), path: "managed.json")
        #expect(config.allowedApplications == ["org.example.Kiosk"])
        #expect(config.adminApplications == ["org.example.KioskSetup"])
        #expect(config.restrictions == ["com.example.app.purchase": .deny])
        #expect(config.lockedFeatures == [.zoom: true])
    }

    @Test func allKeysAreOptional() throws {
        #expect(try ManagedConfig.parse(Data("{}".utf8), path: "m") == ManagedConfig())
    }

    @Test func missingFileIsEmpty() throws {
        try withTemporaryDirectory { directory throws in
            #expect(try ManagedConfig.load(from: directory + "/managed.json") == ManagedConfig())
        }
    }

    @Test func malformedFileNamesPathAndProblem() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/managed.json"
            try Data("{\"AllowedApplications\": [".utf8).write(to: URL(fileURLWithPath: path))
            #expect {
                try ManagedConfig.load(from: path)
            } throws: { error in
                let error = error as? ManagedConfigError
                return error?.path == path && error?.description.contains(path) == true
                    && error?.problem.contains("not valid JSON") == true
            }
        }
    }

    @Test(arguments: [
        (#"{"AllowedApplications": "org.example.Kiosk"}"#, "AllowedApplications"),
        (#"{"Restrictions": {"com.example.buy": "maybe"}}"#, "maybe"),
        (#"{"Restrictions": {"nodots": "deny"}}"#, "nodots"),
        (#"{"LockedFeatures": {"VoiceOver": true}}"#, "VoiceOver"),
        (#"{"AllowedApplication": []}"#, "AllowedApplication"),
        (#"{"AdminApplications": ["/usr/bin/kiosk-setup"]}"#, "/usr/bin/kiosk-setup"),
        (#"{"AdminApplications": [""]}"#, "empty"),
        (#"[]"#, "top level"),
    ])
    func wrongContentNamesTheCulprit(json: String, culprit: String) {
        #expect {
            try ManagedConfig.parse(Data(json.utf8), path: "/etc/guided-access/managed.json")
        } throws: { error in
            (error as? ManagedConfigError)?.problem.contains(culprit) == true
        }
    }

    @Test("A value of the wrong kind is described in the administrator's words, never a Swift type's", arguments: [
        (#"{"AllowedApplications": "org.example.Kiosk"}"#, #"AllowedApplications should be a list of app ids"#),
        (#"{"AdminApplications": [1]}"#, "AdminApplications[0] should be an app id (a string)"),
        (#"{"Restrictions": {"com.example.buy": 1}}"#, #"Restrictions.com.example.buy should be "allow" or "deny""#),
        (#"{"LockedFeatures": {"Zoom": "yes"}}"#, "LockedFeatures.Zoom should be true or false"),
        (#"{"Limits": {"PerApp": null}}"#, "Limits.PerApp should be a whole number, not null"),
        (#"[1]"#, "the top level should be a JSON object"),
    ])
    func wrongKindInPlainWords(json: String, message: String) {
        #expect {
            try ManagedConfig.parse(Data(json.utf8), path: "/etc/guided-access/managed.json")
        } throws: { error in
            let problem = (error as? ManagedConfigError)?.problem ?? ""
            return problem.contains(message) && !problem.contains("Array<") && !problem.contains("Dictionary<")
        }
    }

    @Test func encodesTheSameShapeItReads() throws {
        let config = ManagedConfig(
            allowedApplications: ["a.b"], adminApplications: ["c.d"], restrictions: ["com.example.x": .deny], lockedFeatures: [.grayscale: false])
        #expect(try ManagedConfig.parse(JSONEncoder().encode(config), path: "m") == config)
    }
}
