// SPDX-License-Identifier: LGPL-2.1-or-later
/// iOS remembers each app's regions and options: the last options started
/// for each of the most recently locked apps, most recent first, kept in
/// the state file. Past ``maximumApps`` the least recently locked app is forgotten.
public struct PerAppMemory: Sendable, Equatable {
    /// Apps whose last options are kept (docs/administrators.md, "Limits": `LastOptions`).
    public static let maximumApps = 64
    /// Custom restriction states kept per app, the first by identifier:
    /// an app registers at most 256 on one connection, and the state file
    /// stays small whatever a `Start` carries.
    public static let maximumRestrictionsPerApp = 256

    /// One app's last options, as the state file holds them.
    public struct Entry: Codable, Sendable, Equatable {
        /// The app id, normalised as `Start` stores it.
        public var app: String
        /// What its last session was started with.
        public var options: SessionOptions
    }

    /// Most recently locked first.
    public private(set) var entries: [Entry]

    /// The memory as loaded from the state file; entries past the cap (a
    /// hand-edited file) and repeated apps are dropped.
    public init(_ entries: [Entry] = []) {
        var seen: Set<String> = []
        self.entries = Array(entries.filter { seen.insert($0.app).inserted }.prefix(Self.maximumApps))
    }

    /// The last options started for `app`, or `nil`.
    public func options(for app: String) -> SessionOptions? {
        entries.first { $0.app == app }?.options
    }

    /// Makes `options` the last of `app`, which becomes the most recently
    /// locked; forgets the least recently locked app past the cap.
    public mutating func remember(_ options: SessionOptions, for app: String) {
        var options = options
        if options.restrictions.count > Self.maximumRestrictionsPerApp {
            options.restrictions = Dictionary(uniqueKeysWithValues: options.restrictions.sorted { $0.key < $1.key }
                .prefix(Self.maximumRestrictionsPerApp).map { ($0.key, $0.value) })
        }
        entries.removeAll { $0.app == app }
        entries.insert(Entry(app: app, options: options), at: 0)
        if entries.count > Self.maximumApps { entries.removeLast(entries.count - Self.maximumApps) }
    }
}
