// SPDX-License-Identifier: LGPL-2.1-or-later

/// The desktop the daemon runs in, which decides where the features and
/// a session's demands live (DESIGN, "Every desktop's own settings").
public enum LiveDesktop: Equatable, Sendable {
    /// KDE Plasma of this major version (5 or 6): KConfig files and KWin.
    case plasma(version: Int)
    /// Cinnamon (Linux Mint's desktop): GSettings, with Cinnamon's own schemas.
    case cinnamon
    /// GNOME, and every desktop that keeps its settings in GNOME's GSettings schemas.
    case gsettings

    /// From the session's environment, as the session's start-up sets it:
    /// `XDG_CURRENT_DESKTOP` is a colon-separated list, and Plasma names
    /// itself `KDE` there with `KDE_SESSION_VERSION` 5 or 6, Cinnamon
    /// `X-Cinnamon`. Any other value, or a Plasma version this product does
    /// not know, is GNOME's GSettings.
    public init(environment: [String: String]) {
        let desktops = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { $0.uppercased() }
        if desktops.contains("KDE"), let version = environment["KDE_SESSION_VERSION"].flatMap({ Int($0) }),
           Self.plasmaVersions.contains(version) {
            self = .plasma(version: version)
        } else if desktops.contains("X-CINNAMON") {
            self = .cinnamon
        } else {
            self = .gsettings
        }
    }

    /// The Plasma versions whose settings this product knows.
    public static let plasmaVersions: ClosedRange<Int> = 5...6

    /// How the daemon's log names it.
    public var name: String {
        switch self {
        case .plasma(let version): "KDE Plasma \(version) (KConfig files, KWin)"
        case .cinnamon: "GSettings (the org.cinnamon schemas)"
        case .gsettings: "GSettings"
        }
    }
}
