// SPDX-License-Identifier: LGPL-2.1-or-later
import Testing
@testable import GuidedAccessCore

@Suite("Restriction identifiers")
struct RestrictionIdentifierTests {
    @Test func acceptsReverseDNS() throws {
        #expect(try RestrictionIdentifier("com.example.app.purchase").rawValue == "com.example.app.purchase")
        #expect(throws: Never.self) { try RestrictionIdentifier("a_b.c-d.E9") }
    }

    @Test func threeBytesIsTheShortestAccepted() throws {
        _ = try RestrictionIdentifier("a.b")
        #expect(throws: DomainError.self) { try RestrictionIdentifier("ab") }
    }

    @Test func twoHundredFiftyFiveBytesPassAndOneMoreFails() throws {
        let longest = "com." + String(repeating: "a", count: 251)
        #expect(longest.utf8.count == 255)
        _ = try RestrictionIdentifier(longest)
        let tooLong = longest + "a"
        #expect {
            try RestrictionIdentifier(tooLong)
        } throws: { error in
            (error as? DomainError)?.name == "InvalidArgument"
                && (error as? DomainError)?.message.contains("256 bytes") == true
        }
    }

    @Test(arguments: ["com", "com.", ".com", "com..example", "com.exa mple", "com.exämple", "com/example", ""])
    func rejectsMalformed(_ raw: String) {
        #expect(throws: DomainError.self) { try RestrictionIdentifier(raw) }
    }
}

@Suite("Purpose texts")
struct PurposeTextTests {
    @Test func threeThousandNineHundredNinetyNineBytesPass() throws {
        try PurposeText.validate(String(repeating: "x", count: 3999))
    }

    @Test func fourThousandBytesFail() {
        #expect(throws: DomainError.self) { try PurposeText.validate(String(repeating: "x", count: 4000)) }
    }

    @Test func countsBytesNotCharacters() {
        // 2000 two-byte characters are 4000 bytes.
        #expect(throws: DomainError.self) { try PurposeText.validate(String(repeating: "é", count: 2000)) }
    }

    @Test(arguments: ["", " ", "\n\t", "\u{00A0}\u{2003}\u{3000}", "\u{2028}"])
    func rejectsBlank(_ text: String) {
        #expect(throws: DomainError.invalidArgument(
            "the restriction text is blank; describe what the restriction controls")) {
            try PurposeText.validate(text)
        }
    }

    @Test func acceptsTextWithSurroundingSpace() throws {
        try PurposeText.validate("  In-app purchases \n")
    }

    @Test(arguments: [0xFFFF, 0x10FFFF, 0xFDD0] as [UInt32])
    func rejectsNoncharacters(_ codePoint: UInt32) {
        let text = "Buy " + String(Character(Unicode.Scalar(codePoint)!))
        #expect(throws: DomainError.self) { try PurposeText.validate(text) }
    }

    @Test func acceptsOtherUnicode() throws {
        try PurposeText.validate("Käufe 🛒 — 購入")
    }
}

@Suite("App ids")
struct AppIdentifierTests {
    @Test func limits() throws {
        try AppIdentifier.validate("org.example.Kiosk")
        try AppIdentifier.validate("/usr/bin/" + String(repeating: "a", count: 246))
        #expect(throws: DomainError.self) { try AppIdentifier.validate("") }
        #expect(throws: DomainError.self) { try AppIdentifier.validate(String(repeating: "a", count: 256)) }
        #expect(throws: DomainError.self) { try AppIdentifier.validate("org.example\nKiosk") }
    }
}

@Suite("Vocabulary")
struct VocabularyTests {
    @Test func regionsNeedArea() throws {
        _ = try Region(x: -5, y: 0, width: 1, height: 1)
        #expect(throws: DomainError.self) { try Region(x: 0, y: 0, width: 0, height: 10) }
        #expect(throws: DomainError.self) { try Region(x: 0, y: 0, width: 10, height: -1) }
    }

    @Test func errorNamesForTheAuditLog() {
        let names = [
            DomainError.permissionDenied(""), .failed(""), .invalidArgument(""), .notActive(""),
            .alreadyActive(""), .notOwner(""), .quotaExceeded(""), .passcodeBackOff(seconds: 1),
            .unknownFeature(""),
        ].map(\.name)
        #expect(names == [
            "PermissionDenied", "Failed", "InvalidArgument", "NotActive", "AlreadyActive", "NotOwner",
            "QuotaExceeded", "RateLimited", "UnknownFeature",
        ])
        #expect(DomainError.passcodeBackOff(seconds: 20).message.contains("20 seconds"))
    }

    @Test func systemRestrictionNames() {
        #expect(SystemRestriction.allCases.map(\.rawValue) == [
            "sleep-wake-button", "volume-buttons", "motion", "keyboards", "touch", "notifications",
            "app-switching", "power-menu",
        ])
    }

    @Test func adminActionIds() {
        #expect(Set(AdminAction.allCases.map(\.rawValue)) == [
            "org.guidedaccess.start-session", "org.guidedaccess.end-session",
            "org.guidedaccess.request-session", "org.guidedaccess.set-passcode",
            "org.guidedaccess.configure-features", "org.guidedaccess.configure-restrictions",
        ])
    }

    @Test func featuresInContractOrder() {
        #expect(Feature.allCases.count == 27)
        #expect(Feature.allCases.first?.name == "ScreenReader")
        #expect(Feature.allCases.last?.name == "VisualBell")
        #expect(Feature(rawValue: "IncreaseContrast") == .increaseContrast)
        #expect(Feature(rawValue: "VoiceOver") == nil)
        #expect(GuidedAccessFeature.allCases.map(\.feature.name) == [
            "AssistiveTouch", "Grayscale", "InvertColors", "ScreenReader", "Zoom",
        ])
    }
}
