// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import FoundationEssentials
import GuidedAccessContract
import GuidedAccessCore

/// `BeginAssessment` and `EndAssessment` on `org.guidedaccess.GuidedAccess1`:
/// an exam app listed in managed.json's `AssessmentApplications` locks the
/// desktop to itself. No polkit: the administrator's list is the grant, as
/// Apple's entitlement is.
extension GuidedAccessService {
    func beginAssessment(_ call: MethodCall, configuration raw: [String: Variant]) async throws {
        let caller = try await identify(call)
        do {
            let configuration = try AssessmentConfiguration(try Options(raw, accepting: Contract.Session.AssessmentOptions.all))
            guard let app = read({ model in caller.appIDs.first(where: model.mayBeginAssessment) }) else {
                throw DomainError.permissionDenied(
                    "\(caller.app) may not begin an assessment: the administrator lists exam apps in \(managedConfigPath) (AssessmentApplications)")
            }
            let changes = try await model.with { try $0.beginAssessment(app: app, configuration: configuration, now: Date()) }
            audit(caller, "begin-assessment", app, .allowed)
            call.afterReply { self.publish(changes) }
        } catch let error as DomainError {
            audit(caller, "begin-assessment", caller.app, error.isDenial ? .denied : .error(error))
            throw error
        }
    }

    /// `EndAssessment`: the assessment's own app ends it; anyone else needs
    /// end-session authority (polkit's `end-session`, as `End` without a
    /// passcode), which interrupts it: the app hears `AssessmentInterrupted`.
    func endAssessment(_ call: MethodCall) async throws {
        let caller = try await identify(call)
        guard let app = read({ model in caller.appIDs.first { model.isAssessmentOwner($0) } }) else {
            try await endAssessmentAsAdministrator(call)
            return
        }
        do {
            let changes = try await model.with { try $0.endAssessment(requestedBy: app, now: Date()) }
            audit(caller, "end-assessment", app, .allowed)
            call.afterReply { self.publish(changes) }
        } catch let error as DomainError {
            audit(caller, "end-assessment", app, error.isDenial ? .denied : .error(error))
            throw error
        }
    }

    private func endAssessmentAsAdministrator(_ call: MethodCall) async throws {
        try await authorized(call, audit: "end-assessment", target: read { $0.app }, required: { model in
            guard model.mode == .assessment else { throw DomainError.notActive("no assessment is running; nothing to end") }
            return [.endSession]
        }, change: { model in (try model.end(now: Date()), ()) })
    }

    /// The enforcer `name` no longer covers `lost` (it left, withdrew, or
    /// registered again without them): when the assessment relied on any of
    /// them, its app hears it was interrupted; the lock stays.
    func enforcerDropped(_ name: String, lost: Set<String>) {
        guard !lost.isEmpty, let interruption = read({ $0.assessmentInterruption(enforcer: name, lost: lost) }) else { return }
        if case .assessmentInterrupted(let reason) = interruption { log("assessment interrupted: \(reason)") }
        publish([interruption])
    }
}

extension AssessmentConfiguration {
    /// `BeginAssessment`'s configuration, parsed and checked once here at the edge.
    init(_ options: Options) throws {
        let option = Contract.Session.AssessmentOptions.self
        try self.init(
            participants: options[option.participants] ?? [], allowsScreenCapture: options[option.allowsScreenCapture] ?? false,
            allowsClipboard: options[option.allowsClipboard] ?? false, allowsNotifications: options[option.allowsNotifications] ?? false,
            allowsAccessibilitySpeech: options[option.allowsAccessibilitySpeech] ?? false,
            keepAccessibility: options[option.keepAccessibility] ?? true, allowsSpellCheck: options[option.allowsSpellCheck] ?? false,
            timeLimit: options[option.timeLimit] ?? 0)
    }

    /// The `Assessment` property: every key, under `BeginAssessment`'s names.
    var wireValue: [String: Variant] {
        let option = Contract.Session.AssessmentOptions.self
        var wire: [String: Variant] = [:]
        wire[option.participants] = participants
        wire[option.allowsScreenCapture] = allowsScreenCapture
        wire[option.allowsClipboard] = allowsClipboard
        wire[option.allowsNotifications] = allowsNotifications
        wire[option.allowsAccessibilitySpeech] = allowsAccessibilitySpeech
        wire[option.keepAccessibility] = keepAccessibility
        wire[option.allowsSpellCheck] = allowsSpellCheck
        wire[option.timeLimit] = timeLimit
        return wire
    }
}
