// The rules of one control connection, decided on a clock handed in: where requests end, how long a
// request may be, how fast a client may ask, how long it may sit silent, how much unread answer it
// may leave. The shell feeds it the bytes it read and carries out what comes back, so a slow or
// hostile client costs a bounded buffer and never a frame.

/// The bounds every connection is held to.
public struct ControlLimits: Sendable, Equatable {
    /// The longest request line, "\n" included.
    public var lineBytes = 4096
    /// Connections at once; one more is answered `error busy` and closed.
    public var clients = 8
    /// Requests per second a client may keep up, and how many it may send at once.
    public var ratePerSecond = 20.0
    public var burst = 40.0
    /// A connection that sends nothing for this long is closed (a stuck or forgotten client must
    /// not hold one of the `clients` places).
    public var idleSeconds = 60.0
    /// A request begun must end (its "\n") within this: a client sending a byte every 20 s is
    /// never silent for `idleSeconds`, and eight of them held every place (issue 54).
    public var requestSeconds = 10.0
    /// Answers a client leaves unread beyond this are its end: the connection is closed.
    public var unreadReplyBytes = 256 * 1024
    /// Screenshots, across every client (and the bridge): one being made at a time, and a new one
    /// at most this often. Each costs a PNG encode (94 ms at 1080p) beside the frames on a 2-core
    /// board: 100 requests took a crawling tape from 41 to 11 frames a second.
    public var screenshotInterval = 0.5
    /// A screenshot not written within this is given up (a reader that takes nothing, a hung NFS
    /// or sshfs mount); the client is told so.
    public var screenshotSeconds = 60.0

    public init() {}
}

public struct ControlSession: Sendable {
    /// What the shell does with what came in.
    public enum Action: Sendable, Equatable {
        /// A request to carry out (through the core); its answer goes back in order.
        case request(ControlCommand)
        /// An answer the session gives itself (a malformed or too-fast request).
        case reply(ControlReply)
        /// Send what is queued, then close, logging `reason`.
        case closeConnection(reason: String)
    }

    public let limits: ControlLimits
    private var buffer: [UInt8] = []
    private var tokens: Double
    private var lastRefill: Double
    public private(set) var lastActivity: Double
    /// When the unfinished request in `buffer` began (nil: none).
    public private(set) var requestBegan: Double?
    public private(set) var closed = false
    /// Requests answered with `busy` since the last one let through (logged once per burst).
    public private(set) var refusedForRate = 0

    public init(limits: ControlLimits = ControlLimits(), openedAt: Double) {
        self.limits = limits
        tokens = limits.burst
        lastRefill = openedAt
        lastActivity = openedAt
    }

    /// When the connection is closed unless it sends something (silence), or unless it ends the
    /// request it began.
    public var idleDeadline: Double {
        min(lastActivity + limits.idleSeconds, requestBegan.map { $0 + limits.requestSeconds } ?? .infinity)
    }

    /// The bytes read at `time` (an empty read is the peer's end of file).
    public mutating func received(_ bytes: [UInt8], at time: Double) -> [Action] {
        guard !closed else { return [] }
        if bytes.isEmpty {
            closed = true
            return [.closeConnection(reason: "closed by the client")]
        }
        lastActivity = time
        var actions: [Action] = []
        var start = 0
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") {
            buffer.append(contentsOf: bytes[start..<i])
            start = i + 1
            if buffer.count + 1 > limits.lineBytes { return actions + tooLong() }
            var line = buffer
            buffer.removeAll(keepingCapacity: true)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            actions.append(admit(line, at: time))
        }
        buffer.append(contentsOf: bytes[start...])
        if buffer.count + 1 > limits.lineBytes { return actions + tooLong() }
        // A request begun in this read (or an earlier one, still unfinished) has its own clock.
        if buffer.isEmpty { requestBegan = nil } else if requestBegan == nil || start > 0 { requestBegan = time }
        return actions
    }

    /// True when `time` is past the idle deadline (the shell closes the connection).
    public mutating func idle(at time: Double) -> Action? {
        guard !closed, time >= idleDeadline else { return nil }
        closed = true
        if let began = requestBegan, time >= began + limits.requestSeconds {
            return .closeConnection(reason: "a request not finished within \(Int(limits.requestSeconds)) s")
        }
        return .closeConnection(reason: "silent for \(Int(limits.idleSeconds)) s")
    }

    private mutating func tooLong() -> [Action] {
        closed = true
        buffer = []
        return [.reply(.error(.tooLong("a request has at most \(limits.lineBytes) bytes; closing"))),
                .closeConnection(reason: "a request longer than \(limits.lineBytes) bytes")]
    }

    private mutating func admit(_ line: [UInt8], at time: Double) -> Action {
        tokens = min(limits.burst, tokens + max(0, time - lastRefill) * limits.ratePerSecond)
        lastRefill = time
        guard tokens >= 1 else {
            refusedForRate += 1
            return .reply(.error(.busy("more than \(Int(limits.ratePerSecond)) requests a second; this one was not carried out")))
        }
        tokens -= 1
        refusedForRate = 0
        guard let text = String(validating: line, as: UTF8.self) else {
            return .reply(.error(.usage("a request is UTF-8 text")))
        }
        switch ControlCommand.parse(text) {
        case .success(let command): return .request(command)
        case .failure(let error): return .reply(.error(error))
        }
    }
}

/// Whether a peer may use the socket: root, or a member of the socket's group; without a group,
/// the daemon's own user. With a group, the daemon's user counts only as a member: the shipped
/// units run the fetcher (and the alert commands it starts) as the same dynamic user, and a
/// compromised fetcher or a careless alert script could put banners up, take screenshots and
/// switch the screen off (issue 54). (The socket's mode already keeps others from connecting; this
/// holds when it is passed in by systemd with another mode, or when a test loosens it.)
public struct ControlPeerPolicy: Sendable, Equatable {
    public var ownUID: UInt32
    /// The group whose members may talk (nil: root and the daemon's user).
    public var group: UInt32?

    public init(ownUID: UInt32, group: UInt32?) {
        self.ownUID = ownUID
        self.group = group
    }

    public func allows(uid: UInt32, gid: UInt32, groups: [UInt32]) -> Bool {
        if uid == 0 { return true }
        guard let group else { return uid == ownUID }
        return gid == group || groups.contains(group)
    }
}

/// Whether a screenshot may start: one being made at a time across every client (and the bridge),
/// and a new one at most every `interval` seconds. Pure: the server says how many are still being
/// written (a write stalled on a hung file system keeps its place until its thread returns) and
/// the time.
public struct ScreenshotGate: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case never
        case started(at: Double)
    }
    public private(set) var state = State.never
    public let interval: Double

    public init(interval: Double) { self.interval = interval }

    /// Asks for one at `time`: nil when it may start (and is counted as started), else the refusal.
    public mutating func request(at time: Double, inFlight: Int) -> ControlError? {
        if inFlight > 0 { return .busy("a screenshot is being written; try again in a moment") }
        if case .started(let last) = state, time - last < interval, time >= last {
            return .busy("at most \(max(1, Int((1 / interval).rounded()))) screenshots a second")
        }
        state = .started(at: time)
        return nil
    }
}
