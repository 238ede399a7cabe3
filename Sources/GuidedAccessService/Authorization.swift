// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import FoundationEssentials
import Glibc
import GuidedAccessCore

/// The authorization step every admin handler shares.
extension GuidedAccessService {
    /// Resolves the caller and refuses callers of another user.
    func identify(_ call: MethodCall) async throws -> CallerIdentity {
        let caller = try await callers.identity(of: call)
        if let refusal = Self.refusal(ofUser: caller.userID) { throw refusal }
        return caller
    }

    /// Callers of another user are refused, on every interface but Introspectable.
    static func refusal(ofUser uid: UInt32) -> DomainError? {
        guard uid != getuid() else { return nil }
        return .permissionDenied(
            "this service belongs to user \(getuid()) and refuses calls from user \(uid); use your own session's service")
    }

    /// Runs an admin change: `required` validates and names the polkit
    /// actions needed in the current state; each is checked; then, under
    /// the lock, `required` runs again (other calls may have changed the
    /// state meanwhile) and `change` applies. Every outcome is audited, and
    /// signals go out after the reply.
    func authorized<T: Sendable>(
        _ call: MethodCall, audit action: String, target: String, interactive: Bool = false,
        required: (GuidedAccessModel) throws -> [AdminAction],
        change: (inout GuidedAccessModel) throws -> ([ModelChange], T)
    ) async throws -> T {
        try await authorized(call, audit: action, target: target, interactive: interactive, required: required,
                             prepare: {}, change: { model, _ in try change(&model) })
    }

    /// The same, with slow work (`prepare`, e.g. hashing a passcode) that
    /// runs once authorized and outside the model's lock; `change` gets its result.
    func authorized<Prepared, T: Sendable>(
        _ call: MethodCall, audit action: String, target: String, interactive: Bool = false,
        required: (GuidedAccessModel) throws -> [AdminAction],
        prepare: () throws -> Prepared,
        change: (inout GuidedAccessModel, Prepared) throws -> ([ModelChange], T)
    ) async throws -> T {
        let caller = try await identify(call)
        do {
            let actions = try model.read(required)
            try await authorize(actions, caller: caller, interactive: interactive || call.allowsInteractiveAuthorization)
            try await requireStillConnected(caller, call)
            let prepared = try prepare()
            let (changes, result) = try await model.with { model in
                let now = try required(model)
                guard Set(now).isSubset(of: Set(actions)) else {
                    throw DomainError.failed("the session changed while waiting for authorization; try again")
                }
                return try change(&model, prepared)
            }
            audit(caller, action, target, .allowed)
            call.afterReply { self.publish(changes) }
            return result
        } catch let error as DomainError {
            audit(caller, action, target, error.isDenial ? .denied : .error(error))
            throw error
        } catch let error as DBusError where error.name == .interactiveAuthorizationRequired {
            audit(caller, action, target, .denied)
            throw error
        } catch {
            audit(caller, action, target, .error(.failed("\(error)")))
            throw error
        }
    }

    /// A caller that left while polkit was thinking gets nothing changed
    /// (once the daemon has seen it leave; no round trip to ask the bus).
    func requireStillConnected(_ caller: CallerIdentity, _ call: MethodCall) async throws {
        guard try await callers.isConnected(caller.busName, on: call.connection) else {
            throw DomainError.failed("the caller left the bus before authorization finished; nothing was changed")
        }
    }

    /// Asks polkit for each action; the first refusal ends the call. A
    /// sandboxed caller is refused before polkit is asked (``sandboxRefusal(of:for:)``).
    func authorize(_ actions: [AdminAction], caller: CallerIdentity, interactive: Bool) async throws {
        if let first = actions.first, let refusal = sandboxRefusal(of: caller, for: first) { throw refusal }
        for action in actions {
            switch await polkit.check(action, for: caller, interactive: interactive) {
            case .authorized:
                continue
            case .challenge:
                throw DBusError.interactiveAuthorizationRequired(
                    "\(action.rawValue) needs an administrator's password; call again allowing interactive authorization (guided-access --interactive)")
            case .denied(let reason):
                throw DomainError.permissionDenied("not authorized for \(action.rawValue): \(reason); ask an administrator")
            case .busy(let reason):
                throw DomainError.rateLimited(reason)
            }
        }
    }

    /// The one rule for sandboxed callers: an app in a Flatpak sandbox is
    /// untrusted code, so it never gets an administrator's authority, whatever
    /// polkit would grant its user, unless managed config's
    /// `AdminApplications` names it (then polkit decides, as for any caller).
    /// Every polkit action is such an authority, `RequestSession`'s too: a
    /// sandboxed app locks itself only when `AllowedApplications` lists it.
    func sandboxRefusal(of caller: CallerIdentity, for action: AdminAction) -> DomainError? {
        guard let app = caller.flatpakID, !read({ $0.mayActAsAdministrator(sandboxedApp: app) }) else { return nil }
        return .permissionDenied(
            "sandboxed apps (\(app)) cannot act as an administrator (\(action.rawValue)); "
                + "an administrator can allow it with AdminApplications in \(managedConfigPath)")
    }

    func audit(_ caller: CallerIdentity, _ action: String, _ target: String, _ result: AuditResult) {
        audit(AuditCaller(uid: caller.userID, pid: caller.processID, app: caller.app), action, target, result)
    }

    /// Appends one record; a failed write is logged, never thrown at the caller.
    func audit(_ who: AuditCaller, _ action: String, _ target: String, _ result: AuditResult) {
        do {
            try auditLog.append(caller: who, action: action, target: target, result: result, now: Date())
        } catch {
            log("audit log write failed: \(error)")
        }
    }
}

extension DomainError {
    /// Refusals (as opposed to bad input or failures), for the audit log.
    var isDenial: Bool {
        switch self {
        case .permissionDenied, .rateLimited: true
        default: false
        }
    }
}
