// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract

/// Options for ``GuidedAccessAdmin/start(app:options:interactive:)``, and
/// what ``GuidedAccessAdmin/lastOptions(for:)`` answers.
public struct GuidedAccessSessionOptions: Sendable, Hashable {
    /// Seconds until the session expires; nil for no limit.
    public var timeLimit: UInt64?
    /// Built-in restrictions by name (`sleep-wake-button`, ...) → state.
    public var systemRestrictions: [String: GuidedAccessRestrictionState]
    /// Screen regions where input is ignored.
    public var disabledRegions: [GuidedAccessRegion]
    /// Custom restriction states to apply for the session.
    public var restrictions: [String: GuidedAccessRestrictionState]
    /// How the enforcer shows the app's windows; nil for the default (`as-is`).
    public var presentation: GuidedAccessPresentation?
    /// Seconds of inactivity before the screen blanks during the session,
    /// 0 = never (``AutoLock/never``), -1 = the desktop's own (``AutoLock/desktop``);
    /// nil for the default, the desktop's own.
    public var autoLock: Int64?
    /// Other apps the person may reach during the session.
    public var alsoAllowed: [String]
    /// Features the person may switch during the session from the
    /// enforcer's accessibility menu; nil for the default (managed.json's
    /// `AccessibilityShortcut`, else ScreenReader, Zoom, InvertColors, LargeText, OnScreenKeyboard).
    public var accessibilityShortcut: [AccessibilityFeature]?
    /// Features set for the session and put back when it ends.
    public var features: [AccessibilityFeature: Bool]

    /// Creates options; everything defaults to "none".
    public init(timeLimit: UInt64? = nil, systemRestrictions: [String: GuidedAccessRestrictionState] = [:],
                disabledRegions: [GuidedAccessRegion] = [], restrictions: [String: GuidedAccessRestrictionState] = [:],
                presentation: GuidedAccessPresentation? = nil, autoLock: Int64? = nil, alsoAllowed: [String] = [],
                accessibilityShortcut: [AccessibilityFeature]? = nil, features: [AccessibilityFeature: Bool] = [:]) {
        self.timeLimit = timeLimit
        self.systemRestrictions = systemRestrictions
        self.disabledRegions = disabledRegions
        self.restrictions = restrictions
        self.presentation = presentation
        self.autoLock = autoLock
        self.alsoAllowed = alsoAllowed
        self.accessibilityShortcut = accessibilityShortcut
        self.features = features
    }

    var wireValue: [String: Variant] {
        let option = Contract.Session.StartOptions.self
        var options: [String: Variant] = [:]
        options[option.timeLimit] = timeLimit
        if !systemRestrictions.isEmpty { options[option.systemRestrictions] = systemRestrictions.mapValues(\.rawValue) }
        if !disabledRegions.isEmpty { options[option.disabledRegions] = disabledRegions.map(\.wireValue) }
        if !restrictions.isEmpty { options[option.restrictions] = restrictions.mapValues(\.rawValue) }
        options[option.presentation] = presentation?.rawValue
        options[option.autoLock] = autoLock
        if !alsoAllowed.isEmpty { options[option.alsoAllowed] = alsoAllowed }
        options[option.accessibilityShortcut] = accessibilityShortcut?.map(\.name)
        if !features.isEmpty { options[option.features] = Dictionary(uniqueKeysWithValues: features.map { ($0.key.name, $0.value) }) }
        return options
    }

    /// Reads `GetLastOptions`' answer; entries of another type or value are left out.
    init(_ wire: [String: Variant]) {
        let option = Contract.Session.StartOptions.self
        func states(_ map: [String: String]?) -> [String: GuidedAccessRestrictionState] {
            (map ?? [:]).compactMapValues(GuidedAccessRestrictionState.init(rawValue:))
        }
        self.init(timeLimit: wire[option.timeLimit].flatMap { $0 == 0 ? nil : $0 },
                  systemRestrictions: states(wire[option.systemRestrictions]),
                  disabledRegions: (wire[option.disabledRegions] ?? []).map(GuidedAccessRegion.init),
                  restrictions: states(wire[option.restrictions]),
                  presentation: wire[option.presentation].flatMap(GuidedAccessPresentation.init(rawValue:)),
                  autoLock: wire[option.autoLock], alsoAllowed: wire[option.alsoAllowed] ?? [],
                  accessibilityShortcut: wire[option.accessibilityShortcut].map { $0.compactMap(AccessibilityFeature.init(rawValue:)) },
                  features: Dictionary(uniqueKeysWithValues: (wire[option.features] ?? [:]).compactMap { name, value in
                      AccessibilityFeature(rawValue: name).map { ($0, value) }
                  }))
    }
}

/// How the locked app's windows are shown during a session (the contract's names).
public typealias GuidedAccessPresentation = Presentation

/// The built-in restrictions every session has (the contract's names).
public typealias GuidedAccessSystemRestriction = SystemRestriction

/// A screen rectangle in pixels.
public struct GuidedAccessRegion: Sendable, Hashable {
    public var x: Int32, y: Int32, width: Int32, height: Int32
    /// Creates a region.
    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    var wireValue: WireRegion { WireRegion(x: x, y: y, width: width, height: height) }
    init(_ wire: WireRegion) { self.init(x: wire.x, y: wire.y, width: wire.width, height: wire.height) }
}
