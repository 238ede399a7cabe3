// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// A thread of the product's own that nobody joins: the daemon's workers
/// that live as long as the process (blocking work, GLib's loop, a file
/// watcher) each start one.
public enum DetachedThread {
    /// Runs `body` on a new detached thread; the pthread error when none
    /// could be started (`body` is then dropped).
    @discardableResult
    public static func start(_ body: @escaping @Sendable () -> Void) -> Int32 {
        let box = Unmanaged.passRetained(Body(body))
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        guard status == 0 else {
            box.release()
            return status
        }
        pthread_detach(thread)
        return 0
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
