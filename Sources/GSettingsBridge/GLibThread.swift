// SPDX-License-Identifier: LGPL-2.1-or-later
import CGIO
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
        let started = Semaphore()
        let box = Unmanaged.passRetained(ThreadStart(context: context, loop: loop, started: started))
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
            g_main_context_push_thread_default(start.context)
            start.started.signal()
            g_main_loop_run(start.loop)
            return nil
        }, box.toOpaque())
        precondition(status == 0, "cannot start the GLib thread: error \(status)")
        pthread_detach(thread)
        started.wait()
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
                job.done.signal()
                return 0
            }, unmanaged.toOpaque(), { raw in
                Unmanaged<Job>.fromOpaque(raw!).release()
            })
            job.done.wait()
            return result!
        }
    }
}

private final class ThreadStart {
    let context: OpaquePointer
    let loop: OpaquePointer
    let started: Semaphore
    init(context: OpaquePointer, loop: OpaquePointer, started: Semaphore) {
        self.context = context
        self.loop = loop
        self.started = started
    }
}

private final class Job {
    var run: (() -> Void)?
    let done = Semaphore()
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// A counting semaphore on pthread primitives (no Foundation, no Dispatch).
final class Semaphore: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var count = 0

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    func signal() {
        pthread_mutex_lock(&mutex)
        count += 1
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
    }

    func wait() {
        pthread_mutex_lock(&mutex)
        while count == 0 { pthread_cond_wait(&condition, &mutex) }
        count -= 1
        pthread_mutex_unlock(&mutex)
    }
}
