// SPDX-License-Identifier: LGPL-2.1-or-later

/// A feature's value and where the desktop keeps it.
public struct GuidedAccessFeatureInfo: Sendable, Hashable {
    public var feature: AccessibilityFeature
    public var isEnabled: Bool
    /// `service`, `gsettings:SCHEMA/KEY`, `atspi`, ...
    public var source: String
    /// Who keeps it from changing: `managed` (managed.json's
    /// `LockedFeatures`) or `desktop` (a dconf lock); nil when nobody does.
    public var lockedBy: String?
}
