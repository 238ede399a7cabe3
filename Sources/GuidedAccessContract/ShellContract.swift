// SPDX-License-Identifier: LGPL-2.1-or-later
/// The contract's names as the shells' JavaScript takes them:
/// `shell/common/contract.js`, which `scripts/generate-interfaces` writes
/// (`guided-accessd --print-shell-contract`) and a test keeps current, so
/// the GNOME extension and the KWin scripts spell no name of their own.
///
/// One `export var NAME = VALUE;` per line, each value plain JSON: the
/// extension imports it as an ES module, the KWin scripts take it without
/// `export` (as every file of shell/common), and Python tests read it.
public enum ShellContract {
    /// The text of `contract.js`.
    public static var javaScript: String {
        let start = Contract.Session.StartOptions.self
        let end = Contract.Session.EndOptions.self
        let values: [(String, JSONValue)] = [
            ("BUS_NAME", .string(GuidedAccessBus.name)),
            ("OBJECT_PATH", .string(GuidedAccessBus.objectPath)),
            ("INTERFACES", .object(ServiceInterface.allCases.map { ("\($0)", .string($0.rawValue)) })),
            ("START_OPTIONS", .object([
                ("timeLimit", start.timeLimit.key), ("systemRestrictions", start.systemRestrictions.key),
                ("disabledRegions", start.disabledRegions.key), ("restrictions", start.restrictions.key),
                ("presentation", start.presentation.key), ("autoLock", start.autoLock.key),
                ("alsoAllowed", start.alsoAllowed.key), ("accessibilityShortcut", start.accessibilityShortcut.key),
                ("features", start.features.key), ("interactive", start.interactive.key),
            ].map { ($0.0, .string($0.1)) })),
            ("END_OPTIONS", .object([("passcode", end.passcode.key), ("interactive", end.interactive.key)]
                .map { ($0.0, .string($0.1)) })),
            ("SESSION_STATE", named(SessionState.allCases)),
            ("SESSION_MODE", named(SessionMode.allCases)),
            ("RESTRICTION_STATE", named(RestrictionState.allCases)),
            ("SYSTEM_RESTRICTION", named(SystemRestriction.allCases)),
            ("SYSTEM_RESTRICTIONS", .list(SystemRestriction.allCases.map(\.rawValue))),
            ("PRESENTATION", named(Presentation.allCases)),
            ("PRESENTATIONS", .list(Presentation.allCases.map(\.rawValue))),
            ("AUTO_LOCK", .object([("desktop", .int(AutoLock.desktop)), ("never", .int(AutoLock.never))])),
            ("CAPABILITY", .object([("appLock", .string(EnforcedCapability.appLock)),
                                    ("disabledRegions", .string(EnforcedCapability.disabledRegions)),
                                    ("alsoAllowed", .string(EnforcedCapability.alsoAllowed)),
                                    ("accessibilityShortcut", .string(EnforcedCapability.accessibilityShortcut)),
                                    ("assessment", .string(EnforcedCapability.assessment)),
                                    ("screenCapture", .string(EnforcedCapability.screenCapture)),
                                    ("clipboard", .string(EnforcedCapability.clipboard))])),
            ("ASSESSMENT_OPTIONS", named(AssessmentOptionName.allCases)),
            ("DEFAULT_ACCESSIBILITY_SHORTCUT", .list(AccessibilityFeature.defaultShortcut.map(\.name))),
        ]
        return """
            // SPDX-License-Identifier: GPL-2.0-or-later
            // The daemon's contract as the shells take it, generated from its Swift
            // declarations (Sources/GuidedAccessContract) by scripts/generate-interfaces.
            // Do not edit: a test fails when this differs from what the daemon prints.


            """ + values.map { "export var \($0.0) = \($0.1.text);\n" }.joined()
    }

    /// Each case's wire name under its Swift name (`appSwitching: "app-switching"`).
    private static func named<Case: RawRepresentable<String>>(_ cases: [Case]) -> JSONValue {
        .object(cases.map { ("\($0)", .string($0.rawValue)) })
    }
}

/// The few JSON values the shell contract holds, written in a fixed order.
private indirect enum JSONValue {
    case string(String)
    case int(Int64)
    case list([String])
    case object([(String, JSONValue)])

    var text: String {
        switch self {
        case .string(let string): Self.quoted(string)
        case .int(let number): String(number)
        case .list(let strings): "[" + strings.map(Self.quoted).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { "\(Self.quoted($0.0)): \($0.1.text)" }.joined(separator: ", ") + "}"
        }
    }

    private static func quoted(_ string: String) -> String {
        "\"" + string.flatMap { $0 == "\\" || $0 == "\"" ? ["\\", $0] : [$0] } + "\""
    }
}
