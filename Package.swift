// swift-tools-version:6.0
// SPDX-License-Identifier: LGPL-2.1-or-later
import PackageDescription

let package = Package(
    name: "guided-access",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "DBusKit", targets: ["DBusKit"]),
        .library(name: "GuidedAccess", targets: ["GuidedAccess"]),
        .executable(name: "guided-accessd", targets: ["guided-accessd"]),
        .executable(name: "guided-access", targets: ["guided-access"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // libdbus-1 plus a header that re-exports the macros Swift cannot import.
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // GIO (GSettings, desktop files) plus a shim for the macros Swift cannot import.
        .systemLibrary(
            name: "CGIO",
            pkgConfig: "gio-unix-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // glibc's malloc_trim, which Swift's Glibc module does not import.
        .target(name: "CHeap"),
        // The passcode hashed as the system hashes passwords: libxcrypt's yescrypt
        // (libcrypt1, on every Debian machine), and GLib's HMAC for checking the
        // PBKDF2 hashes earlier versions stored. GLib's headers come with CGIO.
        .target(name: "CCrypt", dependencies: ["CGIO"], linkerSettings: [.linkedLibrary("crypt")]),
        // The one lock of the threads (Locked, with a condition to wait on) and of the tasks
        // (AsyncLock): pthread based, so ThreadSanitizer sees them (Synchronization.Mutex it cannot, on Linux).
        .target(name: "Locking"),
        // Swift API over libdbus. Knows nothing of Guided Access.
        .target(name: "DBusKit", dependencies: ["CDBus", "Locking"]),
        // Private buses (session and system with polkitd) for tests and demos.
        .target(name: "DBusTesting", dependencies: ["DBusKit", "Locking"]),
        // The words the core and the contract share (features, restrictions,
        // states, polkit actions), spelled once, as plain strings. No bus names.
        .target(name: "GuidedAccessVocabulary"),
        // Every bus name and member of the contract, spelled once, in DBusKit's
        // types: shared by the daemon and the client library.
        .target(name: "GuidedAccessContract", dependencies: ["DBusKit", "GuidedAccessVocabulary"]),
        // guided-accessd under test, started one way by every test, benchmark and
        // stress case: where it is built, its command line, what a test needs.
        .target(name: "GuidedAccessTesting", dependencies: ["DBusTesting", "GuidedAccessContract"]),
        // Private buses, polkitd and the bus-activated daemon for the GNOME Shell
        // tests (shell/gnome/tests/run); a test tool, never installed.
        .executableTarget(
            name: "guided-access-test-session",
            dependencies: ["DBusTesting", "GuidedAccessContract", "GuidedAccessTesting", "Locking",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The pure domain: no D-Bus, no bus names, no I/O beyond its own store.
        .target(
            name: "GuidedAccessCore",
            dependencies: ["CCrypt", "GuidedAccessVocabulary"]
        ),
        // The desktop's settings (GSettings: dconf on GNOME) as a feature source
        // and system-restriction applier. The only module that sees GLib types.
        .target(name: "GSettingsBridge", dependencies: ["CGIO", "GuidedAccessCore", "Locking"]),
        // KDE Plasma's settings (KConfig files with their change signal, KWin over
        // D-Bus) as the same feature source and session applier, beside GSettingsBridge.
        .target(name: "PlasmaBridge", dependencies: ["DBusKit", "FileWatching", "GuidedAccessCore", "Locking"]),
        // Tells when a file changes (inotify, polling without it): managed.json, KDE's files.
        .target(name: "FileWatching", dependencies: ["Locking"]),
        // Binds the core to the bus: interfaces, polkit, caller identity; puts
        // the core's words into the contract's names.
        .target(name: "GuidedAccessService",
                dependencies: ["CHeap", "DBusKit", "FileWatching", "GuidedAccessContract", "GuidedAccessCore", "Locking"]),
        .executableTarget(
            name: "guided-accessd",
            // Options are parsed by hand (DaemonOptions): no swift-argument-parser resident all session.
            dependencies: ["GuidedAccessService", "GuidedAccessContract", "GSettingsBridge", "PlasmaBridge"]
        ),
        // Client library for apps, mirroring UIKit's Guided Access API.
        .target(name: "GuidedAccess", dependencies: ["DBusKit", "GuidedAccessContract", "Locking"]),
        .executableTarget(
            name: "guided-access",
            dependencies: ["GuidedAccess", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Every performance and footprint target in one table: scripts/bench.
        .executableTarget(name: "guided-access-benchmark",
                          dependencies: ["CDBus", "DBusKit", "DBusTesting", "GuidedAccessContract", "GuidedAccessTesting", "Locking"],
                          path: "Benchmarks/benchmark"),
        // Real faults made to the release daemon, one table: scripts/stress.
        .executableTarget(name: "guided-access-stress",
                          dependencies: ["CDBus", "DBusKit", "DBusTesting", "GuidedAccess", "GuidedAccessContract", "GuidedAccessTesting",
                                         "Locking"],
                          path: "Benchmarks/stress", exclude: ["forge-signals.py"]),
        // The least memory a daemon on this stack (Swift, DBusKit, GSettings) uses: the bench's floor row.
        .executableTarget(name: "footprint-floor", dependencies: ["CGIO", "DBusKit"], path: "Benchmarks/footprint-floor"),
        .executableTarget(name: "scale-benchmark",
                          dependencies: ["DBusKit", "DBusTesting", "GuidedAccessContract", "GuidedAccessCore", "GuidedAccessTesting"],
                          path: "Benchmarks/scale-benchmark"),
        .testTarget(name: "DBusKitTests", dependencies: ["DBusKit", "DBusTesting", "Locking"]),
        .executableTarget(name: "guided-access-shop", dependencies: ["GuidedAccess"], path: "Examples/Shop"),
        .testTarget(name: "GuidedAccessCoreTests", dependencies: ["GuidedAccessCore"]),
        .testTarget(name: "PlasmaBridgeTests", dependencies: ["PlasmaBridge", "GuidedAccessCore"]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        // Runs the built daemon, CLI and example against private buses and real polkitd.
        .testTarget(name: "GuidedAccessServiceTests",
                    dependencies: ["GuidedAccessService", "GuidedAccessContract", "GSettingsBridge", "PlasmaBridge", "FileWatching", "DBusKit",
                                   "DBusTesting", "GuidedAccessTesting", "Locking"]),
        .testTarget(name: "GuidedAccessTests",
                    dependencies: ["GuidedAccess", "GuidedAccessContract", "DBusKit", "DBusTesting", "GuidedAccessTesting", "Locking"]),
    ],
    swiftLanguageModes: [.v6]
)
