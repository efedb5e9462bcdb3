// WakingTouch: the touch that wakes the screen does nothing else. It wakes on the contact's first
// event (a scrub's beginning), so the rest of that contact — its moves, its end, the tap or swipe
// it turns into on release — is swallowed too, until the next contact begins.

import InputModel

struct WakingTouch {
    enum State: Equatable {
        /// Gestures act.
        case open
        /// The contact that woke the screen is still down (or not yet turned into its gesture).
        case swallowing
    }
    private(set) var state = State.open

    /// `gesture` came; `woke`: it switched the screen on. True when it may act.
    mutating func admit(_ gesture: Gesture, woke: Bool) -> Bool {
        if woke {
            state = .swallowing
            return false
        }
        guard state == .swallowing else { return true }
        guard case .scrubBegan = gesture else { return false }
        state = .open
        return true
    }
}
