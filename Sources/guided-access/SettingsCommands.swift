// SPDX-License-Identifier: LGPL-2.1-or-later
import ArgumentParser
import Foundation
import GuidedAccess

struct Restrictions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, deny, allow and reset apps' custom restrictions.",
        subcommands: [List.self, Deny.self, Allow.self, Reset.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every known custom restriction.")
        @OptionGroup var bus: BusOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let restrictions = try await bus.withAdmin { try await $0.restrictions() }
                .sorted { $0.identifier < $1.identifier }
            if json {
                try emitJSON(restrictions.map {
                    ["identifier": $0.identifier, "text": $0.text, "detail": $0.detailText, "state": $0.state,
                     "forced": $0.isForced, "app": $0.app, "registered": $0.isRegistered] as [String: Any]
                })
            } else if restrictions.isEmpty {
                emit("No custom restrictions are known. Apps declare them while they run.")
            } else {
                emit(table([["IDENTIFIER", "STATE", "REGISTERED", "APP", "TEXT"]] + restrictions.map {
                    [$0.identifier, $0.isForced ? "\($0.state) (forced by managed.json)" : $0.state,
                     $0.isRegistered ? "yes" : "no", $0.app.isEmpty ? "-" : $0.app, $0.text]
                }))
            }
        }
    }

    /// `deny` and `allow` differ only in the state they set.
    static func set(_ identifier: String, to state: GuidedAccessRestrictionState, bus: BusOptions, interactive: Bool) async throws {
        let known = try await bus.withAdmin { admin in
            try await admin.setRestriction(identifier, to: state, interactive: interactive)
            return try await admin.restrictions().contains { $0.identifier == identifier && !$0.app.isEmpty }
        }
        emit("\(identifier): \(state.rawValue)")
        if !known {
            // Kept for an app that declares it later; but a typo is the likelier story.
            FileHandle.standardError.write(Data(("guided-access: warning: no app has declared \(identifier); the state is "
                + "kept for when one does (check the spelling: guided-access restrictions list)\n").utf8))
        }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny a custom restriction.")
        @OptionGroup var bus: BusOptions
        @Argument(help: "The restriction's identifier.") var identifier: String
        @Flag(help: "Let polkit ask for a password if needed.") var interactive = false

        func run() async throws {
            try await Restrictions.set(identifier, to: .deny, bus: bus, interactive: interactive)
        }
    }

    struct Allow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allow a custom restriction.")
        @OptionGroup var bus: BusOptions
        @Argument(help: "The restriction's identifier.") var identifier: String
        @Flag(help: "Let polkit ask for a password if needed.") var interactive = false

        func run() async throws {
            try await Restrictions.set(identifier, to: .allow, bus: bus, interactive: interactive)
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set restrictions back to allow; all of them when none are named.")
        @OptionGroup var bus: BusOptions
        @Argument(help: "Identifiers to reset.") var identifiers: [String] = []
        @Flag(help: "Let polkit ask for a password if needed.") var interactive = false

        func run() async throws {
            try await bus.withAdmin { try await $0.resetRestrictions(identifiers, interactive: interactive) }
            emit(identifiers.isEmpty ? "All restrictions reset to allow" : "Reset to allow: \(identifiers.joined(separator: ", "))")
        }
    }
}

extension AccessibilityFeature: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.kebabName) }
}

struct Features: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show and switch accessibility features.", subcommands: [List.self, Set.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every feature, its value and where it is stored.")
        @OptionGroup var bus: BusOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let features = try await bus.withAdmin { try await $0.features() }
            if json {
                try emitJSON(features.map {
                    ["name": $0.feature.rawValue, "enabled": $0.isEnabled, "source": $0.source,
                     "locked": $0.lockedBy.map { $0 as Any } ?? NSNull()] as [String: Any]
                })
            } else {
                emit(table([["FEATURE", "STATE", "SOURCE"]] + features.map {
                    ["\($0.feature.rawValue) (\($0.feature.kebabName))", Self.state($0), $0.source]
                }))
            }
        }

        /// `on` or `off`, marked when nobody can change it and saying where it is held.
        static func state(_ feature: GuidedAccessFeatureInfo) -> String {
            let value = feature.isEnabled ? "on" : "off"
            switch feature.lockedBy {
            case nil: return value
            case "managed": return "\(value) (locked by managed.json)"
            case "desktop": return "\(value) (locked in the desktop's settings)"
            case let holder?: return "\(value) (locked: \(holder))"
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Switch a feature on or off.")
        @OptionGroup var bus: BusOptions
        @Argument(help: "The feature: property name (ReduceMotion) or kebab-case (reduce-motion).")
        var name: AccessibilityFeature
        @Argument(help: "on or off.") var value: Switch
        @Flag(help: "Let polkit ask for a password if needed.") var interactive = false

        func run() async throws {
            try await bus.withAdmin { try await $0.setFeature(name, enabled: value.isOn, interactive: interactive) }
            emit("\(name.rawValue): \(value.rawValue)")
        }
    }
}
