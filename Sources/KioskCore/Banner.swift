// Banner: the band along the foot of the chart — a `ctl message` until its time is up, else the
// banner of an alert of the instrument on screen — and whether it sits above the range selector
// (a touchscreen leaves the selector free). Every change it reports repaints the whole picture.

struct Banner {
    enum State: Equatable {
        case none
        /// An alert of the instrument on screen fired within its banner time.
        case alert(String)
        /// `ctl message` until `until` (core monotonic seconds); the alert's banner, if any, waits under it.
        case message(String, until: Double, alert: String?)
    }
    private(set) var state = State.none
    /// Where the band sits: along the foot, or just above the range selector when a touchscreen
    /// is attached (a finger must still reach the selector).
    enum Placement: Equatable { case foot, aboveSelector }
    private(set) var placement = Placement.foot
    var aboveSelector: Bool { placement == .aboveSelector }

    /// The words on the band, if any: a message goes first.
    var text: String? {
        switch state {
        case .none: return nil
        case .alert(let text), .message(let text, _, _): return text
        }
    }

    /// The message's words, for the status file.
    var message: String? {
        if case .message(let text, _, _) = state { return text }
        return nil
    }

    /// When the message's time is up.
    var deadline: Double? {
        if case .message(_, let until, _) = state { return until }
        return nil
    }

    private var alert: String? {
        switch state {
        case .none: return nil
        case .alert(let text): return text
        case .message(_, _, let alert): return alert
        }
    }

    private static func state(message: (String, Double)?, alert: String?) -> State {
        if let message { return .message(message.0, until: message.1, alert: alert) }
        return alert.map(State.alert) ?? .none
    }

    /// `ctl message`: shown until `until`, over an alert's banner.
    mutating func post(_ text: String, until: Double) {
        state = Self.state(message: (text, until), alert: alert)
    }

    /// `ctl message --clear`, or its time is up; true when a message was shown.
    @discardableResult
    mutating func clearMessage() -> Bool {
        guard message != nil else { return false }
        state = Self.state(message: nil, alert: alert)
        return true
    }

    /// The time is `now`: true when the message's time ran out (the picture changes).
    mutating func timer(at now: Double) -> Bool {
        guard let due = deadline, due <= now else { return false }
        return clearMessage()
    }

    /// The alert banner of the instrument on screen is now `text`; true when it changed.
    mutating func alert(_ text: String?) -> Bool {
        guard text != alert else { return false }
        if case .message(let words, let until, _) = state {
            state = .message(words, until: until, alert: text)
        } else {
            state = Self.state(message: nil, alert: text)
        }
        return true
    }

    /// A touchscreen came or went; true when a banner shown moves with it.
    mutating func touchScreen(_ present: Bool) -> Bool {
        let wanted: Placement = present ? .aboveSelector : .foot
        guard wanted != placement else { return false }
        placement = wanted
        return state != .none
    }
}
