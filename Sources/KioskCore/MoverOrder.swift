/// "Movers first" (`[chart] watchlist-sort`, `[tape] sort`): the order the watchlist's tiles and the
/// tape's items are shown in. A wall that re-sorted on every price would make its tiles dance, so
/// the order is decided at most once a minute; between two decisions it stays as it was.

/// How the instruments are ordered.
public enum MoveSort: String, Sendable, Equatable, CaseIterable {
    /// As the config lists them.
    case config
    /// By the day's move, the biggest gain first and the biggest loss last.
    case move
    /// By the size of the day's move, up or down.
    case absMove = "abs-move"
}

/// The order, decided from the day's moves; one per list (tiles, tape).
struct MoverOrder: Equatable {
    /// How long an order stands before the moves may change it.
    static let interval = 60.0

    enum State: Equatable {
        /// Nothing decided yet (or the list changed length): the next call decides.
        case undecided
        /// `order[k]` is the config index shown k-th; decided at `at` (core seconds) from `moves`.
        case decided(order: [Int], at: Double, moves: [Double?])
    }

    private(set) var state = State.undecided

    /// The order to show `moves.count` instruments in at `now` (`moves[i]`: instrument i's day
    /// move in percent, nil for none). Re-decided when undecided, when the count changed, when an
    /// instrument got its first move or lost it (its data came or went: no reason to wait), or
    /// when an interval has passed and the moves changed since.
    mutating func order(sort: MoveSort, moves: [Double?], now: Double) -> [Int] {
        guard sort != .config else {
            state = .undecided
            return Array(moves.indices)
        }
        if case .decided(let order, let at, let decidedMoves) = state, order.count == moves.count,
           zip(decidedMoves, moves).allSatisfy({ ($0 == nil) == ($1 == nil) }),
           now - at < Self.interval || decidedMoves == moves, now >= at {
            return order
        }
        let order = Self.sorted(sort: sort, moves: moves)
        state = .decided(order: order, at: now, moves: moves)
        return order
    }

    /// Whether instrument `index` getting `move` makes the standing order fall at once (its first
    /// move, or its move gone).
    func fallsAtOnce(index: Int, move: Double?) -> Bool {
        guard case .decided(_, _, let moves) = state, moves.indices.contains(index) else { return false }
        return (moves[index] == nil) != (move == nil)
    }

    /// When the standing order's minute is up (nil: none stands).
    var standsUntil: Double? {
        if case .decided(_, let at, _) = state { return at + Self.interval }
        return nil
    }

    /// When the standing order may change (its interval is up), if the moves changed since it was
    /// decided: the core wakes then to look. nil when nothing is pending.
    func recheckDue(moves: [Double?]) -> Double? {
        guard case .decided(let order, let at, let decidedMoves) = state, order.count == moves.count,
              decidedMoves != moves else { return nil }
        return at + Self.interval
    }

    /// The sort itself: by move (or its size) from the biggest down; equal moves in config order;
    /// instruments without a move last, in config order.
    static func sorted(sort: MoveSort, moves: [Double?]) -> [Int] {
        func key(_ m: Double) -> Double { sort == .absMove ? abs(m) : m }
        return moves.indices.sorted { a, b in
            switch (moves[a], moves[b]) {
            case let (x?, y?): return key(x) != key(y) ? key(x) > key(y) : a < b
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a < b
            }
        }
    }
}
