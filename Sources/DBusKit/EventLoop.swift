// SPDX-License-Identifier: LGPL-2.1-or-later
import CDBus
import Glibc
import Synchronization
import Locking

/// The one thread that owns a libdbus connection.
///
/// libdbus is driven only through its hooks: watches become `poll` entries,
/// timeouts become the poll deadline, and the wake-up and dispatch-status
/// hooks write to an eventfd. Work from other threads is queued with
/// `execute` and runs here, so libdbus is never entered concurrently and a
/// send from a Swift task never waits for unrelated traffic.
final class EventLoop: @unchecked Sendable {
    private let connection: OpaquePointer
    private let wakeFD: Int32
    /// Work for the loop thread; `finished` once the thread has exited.
    private let queue = Locked<(work: [@Sendable () -> Void], finished: Bool)>(([], false))
    private var thread: pthread_t?
    /// The loop thread's id, published by the thread itself (0 before it runs).
    private let loopThreadID = Atomic<UInt>(0)
    private let stopped = Atomic<Bool>(false)

    // Loop-thread state (touched only from the loop thread, or before it starts).
    private var watches: [OpaquePointer] = []
    private var timeouts: [OpaquePointer: UInt64] = [:]   // timeout → deadline (ms, monotonic)
    private var timers: [(deadline: UInt64, id: UInt64, action: () -> Void)] = []
    private var nextTimerID: UInt64 = 0

    private let joined = Atomic<Bool>(false)

    /// Holds its own reference to the connection, so the loop can finish an
    /// iteration even when the `Connection` went away during it.
    init(connection: OpaquePointer) {
        self.connection = dbus_connection_ref(connection)
        wakeFD = cdbus_wakeup_fd()
    }

    deinit {
        close(wakeFD)
        dbus_connection_unref(connection)
    }

    /// Installs the libdbus hooks and starts the loop thread.
    func start() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(connection, { watch, data in
            EventLoop.from(data).watches.append(watch!)
            return 1
        }, { watch, data in
            EventLoop.from(data).watches.removeAll { $0 == watch }
        }, { _, _ in
            // The poll set is rebuilt from the watches on every iteration.
        }, context, nil)
        dbus_connection_set_timeout_functions(connection, { timeout, data in
            EventLoop.from(data).arm(timeout!)
            return 1
        }, { timeout, data in
            EventLoop.from(data).timeouts[timeout!] = nil
        }, { timeout, data in
            EventLoop.from(data).arm(timeout!)
        }, context, nil)
        // On the loop thread these hooks need no wake-up: the loop checks the
        // dispatch status before it polls again. Skipping the eventfd write
        // there saves three system calls per message.
        dbus_connection_set_wakeup_main_function(connection, { data in EventLoop.from(data).wakeFromOtherThread() }, context, nil)
        dbus_connection_set_dispatch_status_function(connection, { _, _, data in
            EventLoop.from(data).wakeFromOtherThread()
        }, context, nil)

        var tid = pthread_t()
        let retained = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&tid, nil, { arg in
            let loop = Unmanaged<EventLoop>.fromOpaque(arg!).takeRetainedValue()
            loop.run()
            return nil
        }, retained)
        thread = tid
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> EventLoop {
        Unmanaged<EventLoop>.fromOpaque(data!).takeUnretainedValue()
    }

    /// True on the loop thread.
    var isCurrent: Bool {
        loopThreadID.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// Runs `work` on the loop thread: inline when already there, otherwise
    /// queued in order.
    ///
    /// After the loop has stopped no thread drives libdbus any more, so work
    /// runs on the caller's thread; it finds the connection closed and fails
    /// fast instead of waiting forever.
    func execute(_ work: @escaping @Sendable () -> Void) {
        if isCurrent { work(); return }
        let queued = queue.withLock { queue in
            if !queue.finished { queue.work.append(work) }
            return !queue.finished
        }
        if queued { wake() } else { work() }
    }

    /// Runs `action` on the loop thread after `milliseconds`; returns an id for `cancelTimer`.
    /// Must be called on the loop thread.
    @discardableResult
    func addTimer(milliseconds: UInt64, _ action: @escaping () -> Void) -> UInt64 {
        nextTimerID += 1
        timers.append((EventLoop.now() + milliseconds, nextTimerID, action))
        return nextTimerID
    }

    /// Cancels a timer; must be called on the loop thread.
    func cancelTimer(_ id: UInt64) { timers.removeAll { $0.id == id } }

    /// Stops the loop after the work queued so far; waits for the thread unless called from it.
    func stop() {
        execute { self.stopped.store(true, ordering: .relaxed) }
        guard let thread, !isCurrent, !joined.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pthread_join(thread, nil)
    }

    private func wakeFromOtherThread() {
        if !isCurrent { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    private func arm(_ timeout: OpaquePointer) {
        if dbus_timeout_get_enabled(timeout) != 0 {
            timeouts[timeout] = EventLoop.now() + UInt64(max(0, dbus_timeout_get_interval(timeout)))
        } else {
            timeouts[timeout] = nil
        }
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }

    private func run() {
        loopThreadID.store(UInt(pthread_self()), ordering: .releasing)
        while !stopped.load(ordering: .relaxed) {
            runQueuedWork()
            dispatchIncoming()
            if stopped.load(ordering: .relaxed) { break }
            pollOnce()
            fireDueTimeouts()
        }
        runQueuedWork(finishing: true)
    }

    private func runQueuedWork(finishing: Bool = false) {
        let work = queue.withLock { queue -> [@Sendable () -> Void] in
            defer { queue.work.removeAll(keepingCapacity: true) }
            if finishing { queue.finished = true }
            return queue.work
        }
        for item in work { item() }
    }

    private func dispatchIncoming() {
        while !stopped.load(ordering: .relaxed), dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
            dbus_connection_dispatch(connection)
            runQueuedWork()
        }
    }

    // Reused on every iteration so that polling allocates nothing.
    private var active: [OpaquePointer] = []
    private var fds: [pollfd] = []

    private func pollOnce() {
        active.removeAll(keepingCapacity: true)
        for watch in watches where dbus_watch_get_enabled(watch) != 0 { active.append(watch) }
        fds.removeAll(keepingCapacity: true)
        fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
        for watch in active {
            let flags = dbus_watch_get_flags(watch)
            var events: Int16 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
            fds.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
        }
        _ = poll(&fds, nfds_t(fds.count), pollTimeout())
        if fds[0].revents != 0 {
            var counter: UInt64 = 0
            _ = read(wakeFD, &counter, 8)
        }
        for (index, watch) in active.enumerated() where fds[index + 1].revents != 0 {
            // An earlier handle may have removed this watch.
            guard watches.contains(watch) else { continue }
            let revents = fds[index + 1].revents
            var flags: UInt32 = 0
            if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
            if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
            if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
            dbus_watch_handle(watch, flags)
        }
    }

    private func pollTimeout() -> Int32 {
        if !queue.withLock({ $0.work.isEmpty }) { return 0 }
        var nearest = UInt64.max
        for deadline in timeouts.values where deadline < nearest { nearest = deadline }
        for timer in timers where timer.deadline < nearest { nearest = timer.deadline }
        guard nearest != .max else { return -1 }
        let now = EventLoop.now()
        return nearest <= now ? 0 : Int32(min(nearest - now, 60_000))
    }

    private func fireDueTimeouts() {
        guard !timeouts.isEmpty || !timers.isEmpty else { return }
        let now = EventLoop.now()
        for (timeout, deadline) in timeouts where deadline <= now {
            guard timeouts[timeout] != nil else { continue }
            timeouts[timeout] = now + UInt64(max(0, dbus_timeout_get_interval(timeout)))
            dbus_timeout_handle(timeout)
        }
        let due = timers.filter { $0.deadline <= now }
        guard !due.isEmpty else { return }
        timers.removeAll { $0.deadline <= now }
        for timer in due { timer.action() }
    }
}
