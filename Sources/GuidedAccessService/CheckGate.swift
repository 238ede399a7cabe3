// SPDX-License-Identifier: LGPL-2.1-or-later
/// Admits at most `maxRunning` polkit checks at once and lets up to
/// `maxWaiting` more wait their turn, each until its own deadline. The system
/// bus lets one connection have only so many calls awaiting a reply (128 by
/// default); without this bound a burst of calls would be refused by the bus
/// with an unexplained error instead of waiting or being told the service is busy.
actor CheckGate {
    /// The outcome of asking for a turn.
    enum Turn {
        case granted
        /// The line is full.
        case busy
        /// The deadline passed while waiting.
        case expired
    }

    let maxRunning: Int
    let maxWaiting: Int
    private var running = 0
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Turn, Never>, timer: Task<Void, Never>)] = []
    private var nextID: UInt64 = 0

    init(maxRunning: Int, maxWaiting: Int) {
        self.maxRunning = maxRunning
        self.maxWaiting = maxWaiting
    }

    /// Waits for a turn until `deadline`. A granted turn must be given back with ``leave()``.
    func enter(until deadline: ContinuousClock.Instant) async -> Turn {
        if running < maxRunning {
            running += 1
            return .granted
        }
        guard waiters.count < maxWaiting else { return .busy }
        let id = nextID
        nextID += 1
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(until: deadline)) != nil else { return }
            await self?.expire(id)
        }
        return await withCheckedContinuation { waiters.append((id, $0, timer)) }
    }

    /// Hands the turn to the next waiter (whose timer is then not needed), or frees it.
    func leave() {
        if waiters.isEmpty {
            running -= 1
        } else {
            let next = waiters.removeFirst()
            next.timer.cancel()
            next.continuation.resume(returning: .granted)
        }
    }

    private func expire(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: .expired)
    }
}
