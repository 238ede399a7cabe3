// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

// Assessment mode: an exam app the administrator lists locks the desktop to
// itself and its participants and switches off what would help a
// test-taker; only the app, or end-session authority, ends it.

extension GuidedAccessModel {
    /// `Assessment`: what the running assessment allows; `nil` without one.
    public var assessment: AssessmentConfiguration? { session.assessment }

    /// True when managed.json's `AssessmentApplications` lists `app`.
    public func mayBeginAssessment(app: String) -> Bool {
        managedConfig.assessmentApplications.contains(app)
    }

    /// `BeginAssessment` by `app` (which the caller checked is listed):
    /// throws `alreadyActive` while any session runs.
    public mutating func beginAssessment(
        app: String, configuration: AssessmentConfiguration, now: Date
    ) throws(DomainError) -> [ModelChange] {
        guard !session.isLocked else {
            throw .alreadyActive(
                "a \(session.mode?.rawValue ?? "") session locked to \(session.app) is active; an assessment begins only on an unlocked desktop")
        }
        let featuresOn = Set(AssessmentConfiguration.speechFeatures.filter(featureValue))
        let (options, shortcut) = try configuration.sessionOptions(featuresOn: featuresOn, shortcut: shortcut(for: SessionOptions()))
        try checkSessionFeatures(options.features)
        return try commit { (model) throws(DomainError) in
            try model.session.start(app: app, options: options, mode: .assessment, shortcut: shortcut,
                                    assessment: configuration, requestedBy: app, now: now)
            return [.assessmentBegan]
        }
    }

    /// Whether `app` began the running assessment (and so ends it with
    /// `EndAssessment` on its own say).
    public func isAssessmentOwner(_ app: String) -> Bool {
        session.mode == .assessment && session.requestedBy == app
    }

    /// `EndAssessment` by the assessment's own app: throws `notActive`
    /// without an assessment, `notOwner` for another app (which needs
    /// end-session authority: ``end(requestedBy:now:)`` without an app).
    public mutating func endAssessment(requestedBy app: String, now: Date) throws(DomainError) -> [ModelChange] {
        guard session.mode == .assessment else {
            throw .notActive("no assessment is running; nothing to end")
        }
        guard session.requestedBy == app else {
            throw .notOwner(
                "\(app) did not begin this assessment, so it cannot end it; only \(session.app) can, or an administrator with EndAssessment or End")
        }
        return try commit { (model) throws(DomainError) in
            try model.session.end()
            return [.assessmentEnded]
        }
    }

    /// Throws `permissionDenied` for a way out an assessment does not have:
    /// the passcode, or the app's RequestSession(false).
    func refuseIfAssessment(_ what: String) throws(DomainError) {
        guard session.mode == .assessment else { return }
        throw .permissionDenied(
            "\(what) does not end an assessment; \(session.app) ends it with EndAssessment, or an administrator with End")
    }
}

extension GuidedAccessModel {
    /// What the running assessment's app hears when the enforcer `name`
    /// stops covering `lost` (it left the bus, withdrew, or registered again
    /// without them): interrupted when it kept the assessment on screen, or
    /// kept a capture or the clipboard off that the assessment does not
    /// allow. Nil without an assessment or when nothing it relied on is lost.
    public func assessmentInterruption(enforcer name: String, lost: Set<String>) -> ModelChange? {
        guard let configuration = session.assessment, session.mode == .assessment else { return nil }
        if lost.contains(EnforcedCapability.assessment) {
            return .assessmentInterrupted(reason: "the enforcer \(name) no longer keeps the assessment on screen")
        }
        if lost.contains(EnforcedCapability.screenCapture) && !configuration.allowsScreenCapture {
            return .assessmentInterrupted(reason: "the enforcer \(name) could not stop a screen capture")
        }
        if lost.contains(EnforcedCapability.clipboard) && !configuration.allowsClipboard {
            return .assessmentInterrupted(reason: "the enforcer \(name) no longer keeps the clipboard")
        }
        return nil
    }
}
