// SPDX-License-Identifier: LGPL-2.1-or-later
/// Whether a custom restriction lets the person do the thing
/// (UIKit's `UIAccessibility.GuidedAccessRestrictionState`).
public enum GuidedAccessRestrictionState: String, Sendable, Hashable, CaseIterable {
    /// The default: the app behaves normally.
    case allow
    /// The app must not offer the restricted operation.
    case deny
}

/// Declares an app's custom restrictions and hears when they change
/// (UIKit's `UIGuidedAccessRestrictionDelegate`).
///
/// Set it with ``GuidedAccessClient/restrictionDelegate`` or
/// ``GuidedAccessClient/setRestrictionDelegate(_:)``. The client registers the
/// identifiers with the service (again after every service restart) and calls
/// ``guidedAccessRestriction(withIdentifier:didChange:)`` from a background
/// task whenever the state it knows changes; hop to your main actor there if
/// your UI needs it.
public protocol GuidedAccessRestrictionDelegate: AnyObject, Sendable {
    /// Reverse-DNS identifiers of the restrictions this app offers,
    /// e.g. `com.example.shop.purchase`.
    var guidedAccessRestrictionIdentifiers: [String] { get }
    /// A short, human-readable title for the restriction.
    func textForGuidedAccessRestriction(withIdentifier restrictionIdentifier: String) -> String
    /// A longer explanation, or nil for none.
    func detailTextForGuidedAccessRestriction(withIdentifier restrictionIdentifier: String) -> String?
    /// The restriction's state changed; when `newRestrictionState` is `.deny`,
    /// stop offering the operation by any means.
    func guidedAccessRestriction(withIdentifier restrictionIdentifier: String,
                                 didChange newRestrictionState: GuidedAccessRestrictionState)
}

extension GuidedAccessRestrictionDelegate {
    /// No detail text by default.
    public func detailTextForGuidedAccessRestriction(withIdentifier restrictionIdentifier: String) -> String? { nil }
}

/// One restriction changed state, as announced by the service.
public struct GuidedAccessRestrictionChange: Sendable, Hashable {
    /// The restriction's identifier.
    public let identifier: String
    /// Its new state.
    public let state: GuidedAccessRestrictionState

    /// Creates a change record.
    public init(identifier: String, state: GuidedAccessRestrictionState) {
        self.identifier = identifier
        self.state = state
    }
}
