// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import Locking

/// What an assessment leaves allowed (Apple's `AEAssessmentConfiguration`):
/// everything is off unless allowed here.
public struct AssessmentConfiguration: Sendable, Hashable {
    /// Other apps the test-taker may use, e.g. a calculator (app ids).
    public var participants: [String]
    /// Screenshots, screencasts and remote desktop stay possible.
    public var allowsScreenCapture: Bool
    /// The clipboard is neither cleared nor guarded.
    public var allowsClipboard: Bool
    /// Notifications are shown.
    public var allowsNotifications: Bool
    /// Speak Screen and Speak Selection may be turned on.
    public var allowsAccessibilitySpeech: Bool
    /// Speech features the person had on before keep working (Apple's rule).
    public var keepsAccessibility: Bool
    /// The desktop's spelling and emoji suggestions stay on.
    public var allowsSpellCheck: Bool
    /// Seconds until the session expires; nil for none.
    public var timeLimit: UInt64?

    /// Everything off, no participants, no time limit; speech features already on are kept.
    public init(participants: [String] = [], allowsScreenCapture: Bool = false, allowsClipboard: Bool = false,
                allowsNotifications: Bool = false, allowsAccessibilitySpeech: Bool = false, keepsAccessibility: Bool = true,
                allowsSpellCheck: Bool = false, timeLimit: UInt64? = nil) {
        self.participants = participants
        self.allowsScreenCapture = allowsScreenCapture
        self.allowsClipboard = allowsClipboard
        self.allowsNotifications = allowsNotifications
        self.allowsAccessibilitySpeech = allowsAccessibilitySpeech
        self.keepsAccessibility = keepsAccessibility
        self.allowsSpellCheck = allowsSpellCheck
        self.timeLimit = timeLimit
    }

    /// Reads the `Assessment` property; nil when it is `{}` (no assessment runs).
    init?(_ wire: [String: Variant]) {
        guard !wire.isEmpty else { return nil }
        let option = Contract.Session.AssessmentOptions.self
        self.init(participants: wire[option.participants] ?? [], allowsScreenCapture: wire[option.allowsScreenCapture] ?? false,
                  allowsClipboard: wire[option.allowsClipboard] ?? false, allowsNotifications: wire[option.allowsNotifications] ?? false,
                  allowsAccessibilitySpeech: wire[option.allowsAccessibilitySpeech] ?? false,
                  keepsAccessibility: wire[option.keepAccessibility] ?? true, allowsSpellCheck: wire[option.allowsSpellCheck] ?? false,
                  timeLimit: wire[option.timeLimit].flatMap { $0 == 0 ? nil : $0 })
    }

    var wireValue: [String: Variant] {
        let option = Contract.Session.AssessmentOptions.self
        var wire: [String: Variant] = [:]
        if !participants.isEmpty { wire[option.participants] = participants }
        wire[option.allowsScreenCapture] = allowsScreenCapture
        wire[option.allowsClipboard] = allowsClipboard
        wire[option.allowsNotifications] = allowsNotifications
        wire[option.allowsAccessibilitySpeech] = allowsAccessibilitySpeech
        wire[option.keepAccessibility] = keepsAccessibility
        wire[option.allowsSpellCheck] = allowsSpellCheck
        wire[option.timeLimit] = timeLimit
        return wire
    }
}

/// Told how an ``AssessmentSession`` goes (Apple's `AEAssessmentSessionDelegate`).
/// Called on no particular thread.
public protocol AssessmentSessionDelegate: AnyObject, Sendable {
    /// The desktop is locked to the app and its participants: show the test.
    func assessmentSessionDidBegin(_ session: AssessmentSession)
    /// The assessment could not begin (the app is not listed, a session runs, ...).
    func assessmentSession(_ session: AssessmentSession, failedToBeginWithError error: GuidedAccessError)
    /// Something broke the assessment's promises (an administrator ended
    /// it, the enforcer left): stop showing the test's content at once.
    func assessmentSession(_ session: AssessmentSession, wasInterruptedWithError error: GuidedAccessError)
    /// The assessment is over and the desktop unlocked.
    func assessmentSessionDidEnd(_ session: AssessmentSession)
}

extension AssessmentSessionDelegate {
    public func assessmentSession(_ session: AssessmentSession, failedToBeginWithError error: GuidedAccessError) {}
    public func assessmentSession(_ session: AssessmentSession, wasInterruptedWithError error: GuidedAccessError) {}
}

/// An exam app's assessment (Apple's `AEAssessmentSession`): ``begin()``
/// locks the desktop to this app and the configuration's participants and
/// switches off what would help a test-taker; ``end()`` gives it back. The
/// administrator lists the app in managed.json's `AssessmentApplications`.
///
/// ```swift
/// let session = AssessmentSession(configuration: AssessmentConfiguration(participants: ["org.gnome.Calculator"]))
/// session.delegate = exam
/// await session.begin()   // exam.assessmentSessionDidBegin(_:) or …failedToBeginWithError
/// ```
public final class AssessmentSession: Sendable {
    /// What the assessment leaves allowed.
    public let configuration: AssessmentConfiguration
    private let bus: BusAddress
    private let state = Locked(State())

    private struct State {
        weak var delegate: (any AssessmentSessionDelegate)?
        var connection: Connection?
        var listener: Task<Void, Never>?
        var isActive = false
    }

    /// An assessment on `bus` (the session bus by default); nothing happens until ``begin()``.
    public init(configuration: AssessmentConfiguration, bus: BusAddress = .session) {
        self.configuration = configuration
        self.bus = bus
    }

    deinit {
        state.withLock { state in
            state.listener?.cancel()
            state.connection?.close()
        }
    }

    /// Told how the assessment goes; held weakly, as Apple's is.
    public var delegate: (any AssessmentSessionDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// True from a successful ``begin()`` until the assessment ends.
    public var isActive: Bool { state.withLock(\.isActive) }

    /// Asks the service to begin; the delegate hears `didBegin` or `failedToBegin`.
    public func begin() async {
        do {
            let connection = try await connect()
            try await Proxy.guidedAccess(connection).call(Contract.Session.beginAssessment, configuration.wireValue)
            state.withLock { $0.isActive = true }
            delegate?.assessmentSessionDidBegin(self)
        } catch {
            delegate?.assessmentSession(self, failedToBeginWithError: GuidedAccessError(error))
        }
    }

    /// Ends the assessment; the delegate hears `didEnd`.
    /// - Throws: ``GuidedAccessError`` when the service refuses (no assessment of this app).
    public func end() async throws {
        guard let connection = state.withLock({ $0.connection }) else {
            throw GuidedAccessError(.failed, "this assessment never began; call begin() first")
        }
        do {
            try await Proxy.guidedAccess(connection).call(Contract.Session.endAssessment)
        } catch {
            throw GuidedAccessError(error)
        }
        finish()
    }

    /// The connection, made once, following the service's signals before
    /// anything is asked (so no interruption is missed).
    private func connect() async throws -> Connection {
        if let connection = state.withLock({ $0.connection }) { return connection }
        let connection = try Connection(bus)
        let signals = try await connection.signals(MatchRule(sender: .guidedAccess, path: .guidedAccess))
        let listener = Task { [weak self] in
            for await message in signals { self?.handle(message) }
        }
        state.withLock { state in
            state.connection = connection
            state.listener = listener
        }
        return connection
    }

    private func handle(_ message: Message) {
        let session = Contract.Session.self
        if let reason = session.assessmentInterrupted.arguments(of: message), isActive {
            delegate?.assessmentSession(self, wasInterruptedWithError: GuidedAccessError(.failed, reason))
        } else if session.assessmentEnded.arguments(of: message) != nil {
            finish()
        }
    }

    /// Marks the assessment over and tells the delegate, once.
    private func finish() {
        let wasActive = state.withLock { state in
            defer { state.isActive = false }
            return state.isActive
        }
        if wasActive { delegate?.assessmentSessionDidEnd(self) }
    }
}
