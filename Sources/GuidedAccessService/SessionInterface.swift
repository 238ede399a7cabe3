// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import FoundationEssentials
import GuidedAccessCore

/// `org.guidedaccess.GuidedAccess1`: the session.
extension GuidedAccessService {
    var sessionDeclaration: Interface {
        Interface(ServiceInterface.session.name, [
            .property(Contract.Session.version) { 1 },
            .property(Contract.Session.enabled) { self.read { $0.enabled } },
            .property(Contract.Session.state) { self.read { $0.sessionState.rawValue } },
            .property(Contract.Session.app) { self.read { $0.app } },
            .property(Contract.Session.startedAt) { self.read { $0.startedAtMicroseconds } },
            .property(Contract.Session.timeLimit) { self.read { $0.timeLimit } },
            .property(Contract.Session.timeRemaining) { self.read { $0.timeRemaining(now: Date()) } },
            .property(Contract.Session.systemRestrictions) { self.read { $0.systemRestrictions.mapValues(\.rawValue) } },
            .property(Contract.Session.systemRestrictionSources) {
                self.enforcers.sources(merging: self.read { $0.systemRestrictionSources })
            },
            .property(Contract.Session.enforcers) { self.enforcers.byName },
            .property(Contract.Session.disabledRegions) { self.read { $0.disabledRegions.map(WireRegion.init) } },
            .property(Contract.Session.passcodeSet) { self.read { $0.passcodeIsSet } },
            .property(Contract.Session.allowedApplications) { self.read { $0.allowedApplications } },
            .property(Contract.Session.presentation) { self.read { $0.presentation.rawValue } },
            .property(Contract.Session.autoLock) { self.read { $0.autoLock } },
            .property(Contract.Session.mode) { self.read { $0.mode?.rawValue ?? "" } },
            .property(Contract.Session.alsoAllowed) { self.read { $0.alsoAllowed } },
            .property(Contract.Session.accessibilityShortcut) { self.read { $0.accessibilityShortcut.map(\.name) } },
            .property(Contract.Session.assessment) { self.read { $0.assessment?.wireValue ?? [:] } },
            .method(Contract.Session.start) { call, app, options in
                try await self.start(call, app: app, options: options)
            },
            .method(Contract.Session.end) { call, options in
                try await self.end(call, options: options)
            },
            .method(Contract.Session.requestSession) { call, enable, options in
                try await self.requestSession(call, enable: enable, options: options)
            },
            .method(Contract.Session.setPasscode) { call, passcode in
                let cost = self.read { $0.passcodeCost }
                try await self.authorized(call, audit: "set-passcode", target: "",
                                          required: { _ in try PasscodeVault.validate(passcode); return [.setPasscode] },
                                          prepare: { try PasscodeVault.hash(passcode, cost: cost) },
                                          change: { model, hashed in (try model.setPasscode(hashed: hashed), ()) })
            },
            .method(Contract.Session.extendTimeLimit) { call, seconds in
                try await self.authorized(call, audit: "extend-time-limit", target: "\(seconds)",
                                          required: { model in
                                              guard model.enabled else { throw DomainError.notActive("no Guided Access session is active; there is no time limit to extend") }
                                              return [model.sessionAuthority(for: .extendTimeLimit(seconds: seconds)) ?? .endSession]
                                          },
                                          change: { model in (try model.extendTimeLimit(seconds: seconds, now: Date()), ()) })
            },
            // KWin's scripts send every number as `i` (int32), never `u`.
            .method(Contract.Session.getAppIds) { _, pid in try self.appIDs(ofProcess: pid) }.takingInt32AsUInt32(),
            .method(Contract.Session.registerEnforcer) { call, name, restrictions in
                try await self.registerEnforcer(call, name: name, restrictions: restrictions)
            },
            .method(Contract.Session.launchApp) { call in try await self.launchApp(call) },
            .method(Contract.Session.getLastOptions) { _, app in try self.lastOptions(for: app) },
            .method(Contract.Session.beginAssessment) { call, configuration in
                try await self.beginAssessment(call, configuration: configuration)
            },
            .method(Contract.Session.endAssessment) { call in try await self.endAssessment(call) },
            .method(Contract.Session.toggleAccessibilityFeature) { call, feature, enabled in
                try await self.toggleAccessibilityFeature(call, named: feature, enabled: enabled)
            },
            .signal(Contract.Session.statusChanged),
            .signal(Contract.Session.timeLimitWarning),
            .signal(Contract.Session.timeExpired),
            .signal(Contract.Session.assessmentBegan),
            .signal(Contract.Session.assessmentEnded),
            .signal(Contract.Session.assessmentInterrupted),
        ])
    }

    private func start(_ call: MethodCall, app typed: String, options raw: [String: Variant]) async throws {
        let app = AppIdentifier.normalized(typed)
        let option = Contract.Session.StartOptions.self
        let options = try Options(raw, accepting: option.all)
        // Parsed once; a bad app or option is an InvalidArgument whatever polkit would say (and audited as one).
        let parsed = Result { () throws -> SessionOptions in
            try AppIdentifier.validate(app)
            return try SessionOptions(options)
        }
        try await authorized(call, audit: "start-session", target: app, interactive: options[option.interactive] ?? false,
                             required: { model in
            _ = try parsed.get()
            guard !model.enabled else {
                throw DomainError.alreadyActive("a session locked to \(model.app) is already active; end it first")
            }
            return [.startSession]
        }, change: { model in (try model.start(app: app, options: parsed.get(), now: Date()), ()) })
    }

    /// `GetLastOptions`: what the last `Start` for `app` was given, under
    /// the options' own keys; `{}` when none is remembered. A read: no polkit.
    private func lastOptions(for typed: String) throws -> [String: Variant] {
        let app = AppIdentifier.normalized(typed)
        try AppIdentifier.validate(app)
        return read { $0.lastOptions(for: app) }.map(\.wireValue) ?? [:]
    }

    private func end(_ call: MethodCall, options raw: [String: Variant]) async throws {
        let option = Contract.Session.EndOptions.self
        let options = try Options(raw, accepting: option.all)
        let requireActive: @Sendable (GuidedAccessModel) throws -> Void = { model in
            guard model.enabled else { throw DomainError.notActive("no Guided Access session is active; nothing to end") }
        }
        if let passcode = options[option.passcode] {
            // The right passcode is authority enough; wrong ones back off in the model.
            let caller = try await identify(call)
            do {
                let changes = try await passcodeChecks.withLock {
                    // The slow hash runs outside the model lock, so reads go on meanwhile;
                    // checks run one at a time, so parallel guesses cannot outrun the back-off.
                    let (expected, cost) = try self.model.read { model in
                        try requireActive(model)
                        return (try model.passcodeChallenge(now: Date()), model.passcodeCost)
                    }
                    // A legacy hash that matched is hashed anew here too: its commit saves it.
                    let check = try PasscodeVault.check(passcode, against: expected, cost: cost)
                    return try await self.model.with { model in
                        try model.recordPasscodeCheck(check, against: expected, now: Date())
                        try requireActive(model)
                        return try model.end(now: Date())
                    }
                }
                audit(caller, "end-session", "passcode", .allowed)
                call.afterReply { self.publish(changes) }
            } catch let error as DomainError {
                audit(caller, "end-session", "passcode", error.isDenial ? .denied : .error(error))
                throw error
            }
            return
        }
        try await authorized(call, audit: "end-session", target: "", interactive: options[option.interactive] ?? false,
                             required: { model in
                                 try requireActive(model)
                                 // Refused before polkit is asked: no authority ends the administrator's session.
                                 try model.refuseIfManaged()
                                 return [.endSession]
                             },
                             change: { model in (try model.end(now: Date()), ()) })
    }

    /// An app asks to lock or unlock itself. Allowed when its app id is in
    /// `AllowedApplications` or polkit says yes; it may end only its own session.
    private func requestSession(_ call: MethodCall, enable: Bool, options raw: [String: Variant]) async throws -> Bool {
        let option = Contract.Session.RequestSessionOptions.self
        let options = try Options(raw, accepting: option.all)
        let caller = try await identify(call)
        let reason = options[option.reason] ?? ""
        // The caller is the session's app when the session's App is any of
        // its ids, and listed when any of its ids is; that id is the one used.
        let (active, lockedApp) = read { ($0.enabled, $0.app) }
        let listedID = read { model in caller.appIDs.first { model.mayRequestSession(app: $0) } }
        let app = active ? caller.appIDs.first { $0 == lockedApp } ?? caller.app : listedID ?? caller.app
        let listed = listedID != nil
        if enable && active { return lockedApp == app }
        if !enable && !active { return true }
        if enable && !listed {
            do {
                try await authorize([.requestSession], caller: caller, interactive: call.allowsInteractiveAuthorization)
            } catch {
                // Whatever the refusal (polkit's no, no answer, a sandbox), the app hears `false`.
                audit(caller, "request-session", reason, .denied)
                return false
            }
            do {
                try await requireStillConnected(caller, call)
            } catch let error as DomainError {
                audit(caller, "request-session", reason, .error(error))
                throw error
            }
        }
        do {
            if enable { try AppIdentifier.validate(app) }
            let sessionOptions = try SessionOptions(options)
            let changes = try await model.with { model in
                enable ? try model.start(app: app, options: sessionOptions, requestedBy: app, now: Date())
                       : try model.end(requestedBy: app, now: Date())
            }
            audit(caller, enable ? "request-session" : "request-session-end", reason, .allowed)
            call.afterReply { self.publish(changes) }
            return true
        } catch let error as DomainError {
            audit(caller, "request-session", reason, .error(error))
            switch error {
            case .notOwner, .alreadyActive, .notActive: return false
            default: throw error
            }
        }
    }

    /// `ToggleAccessibilityFeature`: the person switches a feature of the
    /// session's accessibility shortcut. No polkit: only an enforcer (the
    /// menu the person works) or the locked app may ask, and only for what
    /// the session offers. Audited.
    private func toggleAccessibilityFeature(_ call: MethodCall, named name: String, enabled: Bool) async throws {
        let caller = try await identify(call)
        let target = "\(name)=\(enabled)"
        do {
            let lockedApp = read { $0.enabled ? $0.app : nil }
            guard enforcers.name(of: caller.busName) != nil || caller.appIDs.contains(where: { $0 == lockedApp }) else {
                throw DomainError.permissionDenied(
                    "only the session's enforcer or its locked app may switch accessibility features during a session; "
                        + "an administrator uses SetFeature")
            }
            let changes = try await model.with { try $0.toggleAccessibilityFeature(named: name, enabled: enabled) }
            audit(caller, "toggle-accessibility-feature", target, .allowed)
            call.afterReply { self.publish(changes) }
        } catch let error as DomainError {
            audit(caller, "toggle-accessibility-feature", target, error.isDenial ? .denied : .error(error))
            throw error
        }
    }
}
