// SPDX-License-Identifier: LGPL-2.1-or-later
import CGIO
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// A thread that runs its own GLib main context, and the only place the
/// bridge touches GIO.
///
/// Why a thread of its own rather than DBusKit's loop: GSettings delivers its
/// `changed` signals through the main context that was current when each
/// object was made, so some context must iterate. DBusKit drives libdbus from
/// a `poll` loop that knows nothing of GLib; folding GLib's sources into it
/// would tie the D-Bus layer to GLib for one module's sake. A dedicated
/// thread keeps the layers apart, and funnelling every GIO call through
/// ``perform(_:)`` means no GSettings object is ever used from two threads.
final class GLibThread: @unchecked Sendable {
    private let context: OpaquePointer
    private let loop: OpaquePointer

    /// Starts the thread; it runs until the process exits (the daemon keeps
    /// one for its whole life).
    init() {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        let started = Locked(false)
        let start = ThreadStart(context: context, loop: loop, started: started)
        let status = DetachedThread.start {
            g_main_context_push_thread_default(start.context)
            start.started.withLockWakingWaiters { $0 = true }
            g_main_loop_run(start.loop)
        }
        precondition(status == 0, "cannot start the GLib thread: error \(status)")
        started.withLock(waitingUntil: { $0 }) { _ in }
    }

    /// Runs `body` on the GLib thread and waits for its result. Called on the
    /// GLib thread itself (from a signal handler), it runs at once.
    func perform<T>(_ body: () -> T) -> T {
        withoutActuallyEscaping(body) { body in
            var result: T?
            let job = Job { result = body() }
            let unmanaged = Unmanaged.passRetained(job)
            g_main_context_invoke_full(context, 0, { raw in
                let job = Unmanaged<Job>.fromOpaque(raw!).takeUnretainedValue()
                job.run?()
                // Drop the closure before waking the caller: it must not outlive `perform`.
                job.run = nil
                job.done.withLockWakingWaiters { $0 = true }
                return 0
            }, unmanaged.toOpaque(), { raw in
                Unmanaged<Job>.fromOpaque(raw!).release()
            })
            // The lock also hands `result` over from the GLib thread.
            job.done.withLock(waitingUntil: { $0 }) { _ in }
            return result!
        }
    }
}

/// What the new thread starts with; handed over once, before it runs (the
/// GLib pointers are not Sendable, but only that thread uses the loop).
private final class ThreadStart: @unchecked Sendable {
    let context: OpaquePointer
    let loop: OpaquePointer
    /// Set once the loop's context is the thread's default.
    let started: Locked<Bool>
    init(context: OpaquePointer, loop: OpaquePointer, started: Locked<Bool>) {
        self.context = context
        self.loop = loop
        self.started = started
    }
}

private final class Job {
    /// Touched on the GLib thread only, once the job is handed over.
    var run: (() -> Void)?
    /// Set once `run` has run and was dropped.
    let done = Locked(false)
    init(_ run: @escaping () -> Void) { self.run = run }
}
