// HeaderNote: what the header's small print knows of the market and the clock — the market note
// last shown and whether its prices are stale, or that the wall clock is not set yet — and when
// the power check must look again (the note or the header's clock changes by itself then).

struct HeaderNote {
    enum State: Equatable {
        /// Nothing said yet (a placeholder, the sample market).
        case unknown
        /// The wall clock is more than 36 hours behind the newest price: no market state, "as of"
        /// or staleness, they would be wrong.
        case clockNotSet
        /// The market note shown, and whether the data is older than `stale-after`.
        case market(MarketNote, stale: Bool)
    }
    private(set) var state = State.unknown
    /// When the header's clock next shows another minute (Unix seconds).
    private(set) var clockNextChange: Int64?
    /// When the power check wakes to look at the note, the clock and the tiles (core seconds).
    private(set) var due: Double?

    var marketNote: MarketNote? {
        if case .market(let note, _) = state { return note }
        return nil
    }

    var isStale: Bool {
        if case .market(_, let stale) = state { return stale }
        return false
    }

    mutating func clockNotSet() { state = .clockNotSet }

    /// `note` is shown at core time `mono`, wall time `wall`: its own next change wakes the check.
    mutating func shown(_ note: MarketNote, stale: Bool, mono: Double, wall: Double) {
        state = .market(note, stale: stale)
        if let change = note.nextChange { wake(at: mono + max(1, Double(change) - wall + 1)) }
    }

    /// The header's clock next changes at `change` (Unix seconds; nil: no clock shown).
    mutating func clock(nextChange change: Int64?, mono: Double, wall: Double) {
        clockNextChange = change
        if let change { wake(at: mono + max(1, Double(change) - wall)) }
    }

    /// The check wakes at `t` at the latest.
    mutating func wake(at t: Double) {
        if due.map({ t < $0 }) ?? true { due = t }
    }

    /// The power check looked: it wakes next at `t` (nil: nothing changes by itself).
    mutating func looked(wakeAt t: Double?) { due = t }
}
