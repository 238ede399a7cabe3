// SPDX-License-Identifier: LGPL-2.1-or-later
import ArgumentParser
import Foundation
import GuidedAccess

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show whether a session is active, for which app, and its settings.")

    @OptionGroup var bus: BusOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let status = try await bus.withAdmin { try await $0.status() }
        if json {
            try emitJSON([
                "version": Int(status.version), "enabled": status.isEnabled, "state": status.state, "app": status.app,
                "startedAt": status.startedAt, "timeLimit": status.timeLimit, "timeRemaining": status.timeRemaining,
                "systemRestrictions": status.systemRestrictions,
                "systemRestrictionSources": status.systemRestrictionSources, "enforcers": status.enforcers,
                "disabledRegions": status.disabledRegions.map { [Int($0.x), Int($0.y), Int($0.width), Int($0.height)] },
                "passcodeSet": status.isPasscodeSet, "allowedApplications": status.allowedApplications,
                "presentation": status.presentation, "autoLock": status.autoLock, "mode": status.mode,
                "alsoAllowed": status.alsoAllowed, "accessibilityShortcut": status.accessibilityShortcut,
            ] as [String: Any])
            return
        }
        var rows: [[String]] = [["Session:", status.state.isEmpty ? (status.isEnabled ? "active" : "inactive") : status.state]]
        if status.isEnabled {
            rows.append(["App:", status.app])
            rows.append(["Mode:", Self.describe(mode: status.mode)])
            rows.append(["Also allowed:", status.alsoAllowed.isEmpty ? "nothing" : status.alsoAllowed.joined(separator: ", ")])
            rows.append(["Accessibility menu:", status.accessibilityShortcut.isEmpty ? "nothing"
                         : status.accessibilityShortcut.compactMap { AccessibilityFeature(rawValue: $0)?.kebabName }.joined(separator: ", ")])
            let started = Date(timeIntervalSince1970: Double(status.startedAt) / 1_000_000)
            rows.append(["Started:", started.formatted(.iso8601)])
            rows.append(["Time limit:", status.timeLimit == 0 ? "none"
                         : "\(formatDuration(status.timeLimit)) (\(formatDuration(status.timeRemaining)) left)"])
            let denied = status.systemRestrictions.filter { $0.value == "deny" }.keys.sorted()
            rows.append(["Denied:", denied.isEmpty ? "nothing" : denied.joined(separator: ", ")])
            rows.append(["Disabled regions:", formatRegions(status.disabledRegions)])
            rows.append(["Presentation:", status.presentation])
            rows.append(["Auto-lock:", formatAutoLock(status.autoLock)])
        }
        rows.append(["Passcode:", status.isPasscodeSet ? "set" : "not set"])
        rows.append(["Allowed apps:", status.allowedApplications.isEmpty ? "none" : status.allowedApplications.joined(separator: ", ")])
        rows.append(["Enforced on screen by:", status.enforcers.isEmpty ? "nothing (no shell has registered)"
                     : status.enforcers.keys.sorted().map { "\($0) (\(status.enforcers[$0]!.joined(separator: ", ")))" }.joined(separator: "; ")])
        emit(table(rows))
        emit("")
        emit(table([["SYSTEM RESTRICTION", "STATE", "ENFORCED THROUGH"]] + status.systemRestrictionSources.keys.sorted().map {
            [$0, status.systemRestrictions[$0] ?? "allow", Self.summary(ofSource: status.systemRestrictionSources[$0] ?? "")]
        }))
    }

    /// The mode in a person's words, with who ends it.
    static func describe(mode: String) -> String {
        switch mode {
        case "guided": "guided (the passcode or an administrator ends it)"
        case "autonomous": "autonomous (the app locked itself; it, the passcode or an administrator ends it)"
        case "single-app": "single-app (set in managed.json; only a change there ends it)"
        case "assessment": "assessment (the exam app ends it)"
        default: mode
        }
    }

    /// `shell:N,gsettings:S/K1,gsettings:S/K2` → `shell N; gsettings S (K1, K2)`; `published` stays.
    static func summary(ofSource source: String) -> String {
        var shells: [String] = [], schemas: [String] = [], keysBySchema: [String: [String]] = [:], other: [String] = []
        for entry in source.split(separator: ",").map(String.init) {
            let key = entry.hasPrefix("gsettings:") ? entry.dropFirst("gsettings:".count).split(separator: "/", maxSplits: 1) : []
            if entry.hasPrefix("shell:") {
                shells.append(String(entry.dropFirst("shell:".count)))
            } else if key.count == 2 {
                let schema = String(key[0])
                if keysBySchema[schema] == nil { schemas.append(schema) }
                keysBySchema[schema, default: []].append(String(key[1]))
            } else {
                other.append(entry)
            }
        }
        let parts = (shells.isEmpty ? [] : ["shell " + shells.joined(separator: ", ")])
            + schemas.map { "gsettings \($0) (\(keysBySchema[$0]!.joined(separator: ", ")))" } + other
        return parts.joined(separator: "; ")
    }
}

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lock the desktop to one app.",
        discussion: "System restrictions: " + GuidedAccessSystemRestriction.allCases.map(\.rawValue).joined(separator: ", "))

    @OptionGroup var bus: BusOptions
    @Option(help: "The app id to lock to (Flatpak id, systemd app id or executable path).") var app: String
    @Option(help: "End the session's free time after this long: 10m, 90s, 1h30m or seconds.") var timeLimit: TimeLimit?
    @Option(help: ArgumentHelp("System restrictions to deny, comma-separated.", valueName: "names"))
    var deny: [String] = []
    @Option(help: ArgumentHelp("Custom restrictions to deny for the session, comma-separated.", valueName: "identifiers"))
    var denyCustom: [String] = []
    @Option(help: ArgumentHelp("A screen region where input is ignored; repeat for more.", valueName: "x,y,w,h"))
    var disableRegion: [GuidedAccessRegion] = []
    @Option(help: "How the app's windows are shown during the session, as-is by default.")
    var presentation: GuidedAccessPresentation?
    @Option(help: ArgumentHelp("Blank the screen after this long without input during the session: 5m, 300 (seconds), "
                               + "never, or desktop for the desktop's own setting (the default).",
                               valueName: "seconds|never|desktop"))
    var autoLock: AutoLockArgument?
    @Option(help: ArgumentHelp("Other apps the person may reach during the session, comma-separated or repeated.",
                               valueName: "app ids"))
    var alsoAllow: [String] = []
    @Option(help: ArgumentHelp("Features the person may switch during the session from the accessibility menu, "
                               + "comma-separated (e.g. screen-reader,zoom); none for no menu. Default: managed.json's, "
                               + "else screen-reader, zoom, invert-colors, large-text, on-screen-keyboard.",
                               valueName: "features"))
    var accessibilityShortcut: String?
    @Option(help: ArgumentHelp("A feature set for the session and put back when it ends, e.g. zoom=on; repeat for more.",
                               valueName: "feature=on|off"))
    var feature: [FeatureSetting] = []
    @Flag(help: "Let polkit ask for a password if needed.") var interactive = false

    private var deniedSystemRestrictions: [String] { commaSeparated(deny) }

    /// `--accessibility-shortcut` parsed; nil when not given (the default applies).
    private var shortcut: [AccessibilityFeature]? {
        get throws {
            guard let accessibilityShortcut else { return nil }
            let names = commaSeparated([accessibilityShortcut])
            if names == ["none"] { return [] }
            return try names.map { name in
                guard let feature = AccessibilityFeature(name: name) else {
                    throw ValidationError("'\(name)' is not a feature; use any of \(AccessibilityFeature.allValueStrings.joined(separator: ", ")), or none")
                }
                return feature
            }
        }
    }

    func validate() throws {
        let known = Set(GuidedAccessSystemRestriction.allCases.map(\.rawValue))
        for name in deniedSystemRestrictions where !known.contains(name) {
            throw ValidationError("'\(name)' is not a system restriction; use one of \(known.sorted().joined(separator: ", "))")
        }
        if app.isEmpty { throw ValidationError("--app needs an app id") }
        _ = try shortcut
    }

    func run() async throws {
        var custom: [String: GuidedAccessRestrictionState] = [:]
        for identifier in denyCustom.flatMap({ $0.split(separator: ",").map(String.init) }) { custom[identifier] = .deny }
        let options = GuidedAccessSessionOptions(
            timeLimit: timeLimit?.seconds,
            systemRestrictions: Dictionary(uniqueKeysWithValues: deniedSystemRestrictions.map { ($0, .deny) }),
            disabledRegions: disableRegion, restrictions: custom, presentation: presentation, autoLock: autoLock?.seconds,
            alsoAllowed: commaSeparated(alsoAllow), accessibilityShortcut: try shortcut,
            features: Dictionary(feature.map { ($0.feature, $0.isOn) }) { _, last in last })
        try await bus.withAdmin { try await $0.start(app: app, options: options, interactive: interactive) }
        emit("Guided Access started for \(app)")
    }
}

struct LastOptions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the options of the last session started for an app.",
        discussion: "The service keeps them for the 64 most recently locked apps; a start sheet opens with them.")

    @OptionGroup var bus: BusOptions
    @Argument(help: "The app id (Flatpak id, systemd app id or absolute executable path).") var app: String
    @Flag(help: "Print JSON ({} when none are kept).") var json = false

    func run() async throws {
        let remembered = try await bus.withAdmin { try await $0.lastOptions(for: app) }
        guard let options = remembered else {
            if json { try emitJSON([String: Any]()) } else { emit("No options kept for \(app)") }
            return
        }
        let denied = options.systemRestrictions.filter { $0.value == .deny }.keys.sorted()
        let customDenied = options.restrictions.filter { $0.value == .deny }.keys.sorted()
        let customAllowed = options.restrictions.filter { $0.value == .allow }.keys.sorted()
        if json {
            try emitJSON([
                "timeLimit": options.timeLimit ?? 0,
                "systemRestrictions": options.systemRestrictions.mapValues(\.rawValue),
                "disabledRegions": options.disabledRegions.map { [Int($0.x), Int($0.y), Int($0.width), Int($0.height)] },
                "restrictions": options.restrictions.mapValues(\.rawValue),
                "presentation": (options.presentation ?? .asIs).rawValue,
                "autoLock": options.autoLock ?? AutoLock.desktop,
                "alsoAllowed": options.alsoAllowed,
                "accessibilityShortcut": options.accessibilityShortcut.map { $0.map(\.name) as Any } ?? NSNull(),
                "features": Dictionary(uniqueKeysWithValues: options.features.map { ($0.key.name, $0.value) }),
            ] as [String: Any])
            return
        }
        emit(table([
            ["Time limit:", options.timeLimit.map(formatDuration) ?? "none"],
            ["Denied:", denied.isEmpty ? "nothing" : denied.joined(separator: ", ")],
            ["Disabled regions:", formatRegions(options.disabledRegions)],
            ["Custom denied:", customDenied.isEmpty ? "nothing" : customDenied.joined(separator: ", ")],
            ["Custom allowed:", customAllowed.isEmpty ? "nothing" : customAllowed.joined(separator: ", ")],
            ["Presentation:", (options.presentation ?? .asIs).rawValue],
            ["Auto-lock:", formatAutoLock(options.autoLock ?? AutoLock.desktop)],
            ["Also allowed:", options.alsoAllowed.isEmpty ? "nothing" : options.alsoAllowed.joined(separator: ", ")],
            ["Accessibility menu:", options.accessibilityShortcut.map { $0.isEmpty ? "none" : $0.map(\.kebabName).joined(separator: ", ") }
                ?? "the default"],
            ["Features:", options.features.isEmpty ? "as they are"
                : options.features.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.kebabName)=\($0.value ? "on" : "off")" }
                    .joined(separator: ", ")],
        ]))
    }
}

struct End: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "End the session, with the passcode or as an administrator.")

    @OptionGroup var bus: BusOptions
    @Flag(help: "Read the passcode from standard input (never from the command line).") var passcodeStdin = false
    @Flag(help: "Let polkit ask for a password if needed.") var interactive = false

    func run() async throws {
        var passcode: String? = nil
        if passcodeStdin {
            guard let line = readSecret(prompt: "Passcode: "), !line.isEmpty else {
                throw ValidationError("no passcode on standard input")
            }
            passcode = line
        }
        try await bus.withAdmin { try await $0.end(passcode: passcode, interactive: interactive) }
        emit("Guided Access ended")
    }
}

struct Passcode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manage the session passcode.", subcommands: [Set.self])

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the passcode that ends a session; read from standard input, never from the command line.")

        @OptionGroup var bus: BusOptions
        @Flag(help: "Let polkit ask for a password if needed.") var interactive = false

        func run() async throws {
            guard let passcode = readSecret(prompt: "New passcode: "), !passcode.isEmpty else {
                throw ValidationError("no passcode on standard input; pipe it in, e.g. `echo 1234 | guided-access passcode set`")
            }
            try await bus.withAdmin { try await $0.setPasscode(passcode, interactive: interactive) }
            emit("Passcode set")
        }
    }
}

struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every signal from the service as it arrives, one line each.")

    @OptionGroup var bus: BusOptions
    @Flag(help: "Print JSON lines.") var json = false
    @Option(help: "Stop after this many signals.") var count: Int?

    func run() async throws {
        try await bus.withAdmin { admin in
            let signals = try await admin.signals()
            if !(await admin.isServiceRunning()) {
                FileHandle.standardError.write(Data("guided-access: the service is not running yet; waiting for it\n".utf8))
            }
            var seen = 0
            for await signal in signals {
                if json {
                    try emitJSON(["path": signal.path, "interface": signal.interface, "member": signal.member,
                                  "arguments": signal.arguments.map(jsonValue)] as [String: Any], compact: true)
                } else {
                    emit(([signal.interface + "." + signal.member, signal.path] + signal.arguments.map(\.description))
                        .joined(separator: " "))
                }
                seen += 1
                if let count, seen >= count { return }
            }
        }
    }
}

struct Assessment: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the assessment an exam app began.", subcommands: [Status.self], defaultSubcommand: Status.self)

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show whether an assessment runs, for which app, and what it allows.",
            discussion: "Exam apps listed in managed.json's AssessmentApplications begin one; only the app, "
                + "or an administrator with `guided-access end --interactive`, ends it.")

        @OptionGroup var bus: BusOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let status = try await bus.withAdmin { try await $0.status() }
            guard let assessment = status.assessment else {
                if json { try emitJSON(["active": false]) } else { emit("No assessment is running") }
                return
            }
            let allowed: [(String, Bool)] = [
                ("screen capture", assessment.allowsScreenCapture), ("clipboard", assessment.allowsClipboard),
                ("notifications", assessment.allowsNotifications), ("accessibility speech", assessment.allowsAccessibilitySpeech),
                ("spell check", assessment.allowsSpellCheck),
            ]
            if json {
                try emitJSON([
                    "active": true, "app": status.app, "participants": assessment.participants,
                    "allowsScreenCapture": assessment.allowsScreenCapture, "allowsClipboard": assessment.allowsClipboard,
                    "allowsNotifications": assessment.allowsNotifications,
                    "allowsAccessibilitySpeech": assessment.allowsAccessibilitySpeech,
                    "keepAccessibility": assessment.keepsAccessibility, "allowsSpellCheck": assessment.allowsSpellCheck,
                    "timeLimit": status.timeLimit, "timeRemaining": status.timeRemaining,
                    "enforcers": status.enforcers.filter { $0.value.contains("assessment") }.keys.sorted(),
                ] as [String: Any])
                return
            }
            let keepers = status.enforcers.filter { $0.value.contains("assessment") }.keys.sorted()
            emit(table([
                ["Assessment:", "running (\(status.state))"],
                ["App:", status.app],
                ["Participants:", assessment.participants.isEmpty ? "none" : assessment.participants.joined(separator: ", ")],
                ["Allowed:", allowed.filter(\.1).map(\.0).joined(separator: ", ").nonEmpty ?? "nothing"],
                ["Switched off:", allowed.filter { !$0.1 }.map(\.0).joined(separator: ", ").nonEmpty ?? "nothing"],
                ["Speech already on:", assessment.keepsAccessibility ? "kept" : "switched off"],
                ["Time limit:", status.timeLimit == 0 ? "none"
                    : "\(formatDuration(status.timeLimit)) (\(formatDuration(status.timeRemaining)) left)"],
                ["Kept on screen by:", keepers.isEmpty ? "nothing (no enforcer covers assessments)" : keepers.joined(separator: ", ")],
            ]))
        }
    }
}

private extension String {
    /// nil for "", so a list can fall back to a word.
    var nonEmpty: String? { isEmpty ? nil : self }
}
