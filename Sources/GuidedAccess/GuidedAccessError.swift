// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract

/// Why ``GuidedAccessClient/configureForGuidedAccess(features:enabled:)``
/// failed (UIKit's `UIAccessibility.GuidedAccessError`).
public struct GuidedAccessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Error codes for Guided Access.
    public enum Code: Int, Sendable, Hashable {
        /// The app is not authorized to perform the requested action.
        case permissionDenied = 0
        /// A failure for another reason (no session, no service, ...).
        case failed = 9_223_372_036_854_775_807
    }

    /// What kind of failure this is.
    public let code: Code
    /// The service's explanation (what was wrong and what to do).
    public let message: String
    /// The D-Bus error name the service replied with, when there was a reply.
    public let serviceErrorName: String?
    /// The service's error from the contract's table, for apps to switch on
    /// (`error.serviceError == .quotaExceeded`); `nil` when the failure came
    /// from elsewhere (no service, a timeout, the bus).
    public var serviceError: ServiceErrorName? { serviceErrorName.flatMap(ServiceErrorName.init(rawValue:)) }

    /// Creates an error.
    public init(_ code: Code, _ message: String, serviceErrorName: String? = nil) {
        self.code = code
        self.message = message
        self.serviceErrorName = serviceErrorName
    }

    public var description: String { message }

    /// `org.guidedaccess.Error.PermissionDenied` is `.permissionDenied`; every
    /// other failure is `.failed`, keeping the service's message.
    init(_ error: any Error) {
        guard let error = error as? DBusError else {
            self.init(.failed, String(describing: error))
            return
        }
        let code: Code = ServiceErrorName(error) == .permissionDenied ? .permissionDenied : .failed
        self.init(code, error.message, serviceErrorName: error.name.rawValue)
    }
}

/// Accessibility features an app may switch while it is locked in Guided
/// Access (UIKit's `UIGuidedAccessAccessibilityFeature`).
public struct GuidedAccessAccessibilityFeature: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    /// Creates a feature set from its raw bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// VoiceOver: the desktop's screen reader (`screen-reader`).
    public static let voiceOver = GuidedAccessAccessibilityFeature(rawValue: 1 << 0)
    /// Zoom: the screen magnifier (`zoom`).
    public static let zoom = GuidedAccessAccessibilityFeature(rawValue: 1 << 1)
    /// AssistiveTouch (`assistive-touch`).
    public static let assistiveTouch = GuidedAccessAccessibilityFeature(rawValue: 1 << 2)
    /// Invert colours (`invert-colors`).
    public static let invertColors = GuidedAccessAccessibilityFeature(rawValue: 1 << 3)
    /// Grayscale display (`grayscale`).
    public static let grayscaleDisplay = GuidedAccessAccessibilityFeature(rawValue: 1 << 4)

    /// The names the service uses on the wire, in a stable order.
    public var wireNames: [String] {
        let all: [(GuidedAccessAccessibilityFeature, String)] = [
            (.assistiveTouch, "assistive-touch"), (.grayscaleDisplay, "grayscale"), (.invertColors, "invert-colors"),
            (.voiceOver, "screen-reader"), (.zoom, "zoom"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}
