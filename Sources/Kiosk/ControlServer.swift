import Control
import KioskCore
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// The control socket's I/O: accepts connections, checks who is at the other end, reads requests
/// through each connection's `ControlSession` and hands them to the core as `.control` events, and
/// writes the answers back, never blocking the loop (every socket is non-blocking and every buffer
/// bounded). What a request does is the core's; this only moves bytes and descriptors.
final class ControlServer {
    private final class Client {
        let id: UInt64
        let connection: UnixConnection
        var session: ControlSession
        var registration: EventLoop.Registration?
        var output: [UInt8] = []
        /// Descriptors passed with requests (SCM_RIGHTS), waiting for the `screenshot` that uses them.
        var passed: [FileDescriptor] = []
        var closing = false
        var peer: String
        /// A screenshot being made and written to the client's descriptor on its own thread: the
        /// client's requests wait (answers stay in order).
        var job: Job?

        init(id: UInt64, connection: UnixConnection, session: ControlSession, peer: String) {
            self.id = id
            self.connection = connection
            self.session = session
            self.peer = peer
        }

        deinit {
            for fd in passed { try? fd.close() }
        }
    }

    private struct Job {
        let write: BackgroundWrite
        let done: (Int) -> String
        var registration: EventLoop.Registration?
        var deadline: EventLoop.Registration?
    }

    let listener: UnixListener
    private let loop: EventLoop
    private let limits: ControlLimits
    private let policy: ControlPeerPolicy
    private let now: () -> Double
    /// Hands a request to the core; the core's answer comes back through `answer` before it returns.
    private let dispatch: (_ requestID: UInt64, ControlCommand) -> Void
    private var clients: [UInt64: Client] = [:]
    /// Request id -> connection id, for the answers.
    private var requests: [UInt64: UInt64] = [:]
    private var nextClient: UInt64 = 1
    private var nextRequest: UInt64 = 1
    private var listenRegistration: EventLoop.Registration?
    private var idleTimer: EventLoop.Registration?
    /// Screenshots' shared rate: one at a time, a few a second.
    private var screenshots: ScreenshotGate

    init(listener: UnixListener, loop: EventLoop, policy: ControlPeerPolicy, limits: ControlLimits = ControlLimits(),
         now: @escaping () -> Double, dispatch: @escaping (UInt64, ControlCommand) -> Void) throws(Errno) {
        self.listener = listener
        self.loop = loop
        self.policy = policy
        self.limits = limits
        screenshots = ScreenshotGate(interval: limits.screenshotInterval)
        self.now = now
        self.dispatch = dispatch
        listenRegistration = try loop.watch(listener.descriptor.rawValue) { [unowned self] _ in acceptAll() }
        idleTimer = try loop.addTimer(after: .seconds(3600)) { [unowned self] in closeIdle() }
        try? loop.disarm(idleTimer!)
    }

    func shutdown() {
        if let listenRegistration { loop.remove(listenRegistration) }
        if let idleTimer { loop.remove(idleTimer) }
        for client in clients.values { drop(client, reason: nil) }
    }

    var connectionCount: Int { clients.count }

    // MARK: Connections

    private func acceptAll() {
        while true {
            let connection: UnixConnection?
            do { connection = try listener.accept() } catch {
                Log.limited(.warning, key: "control-accept", "control: accept: \(error)")
                return
            }
            guard let connection else { return }
            let credentials = try? connection.peerCredentials()
            let peer = credentials.map { "pid \($0.pid) uid \($0.uid)" } ?? "an unknown peer"
            guard let c = credentials, policy.allows(uid: c.uid, gid: c.gid, groups: c.groups) else {
                let group = policy.group.map { "members of group \($0)" } ?? "root and the daemon's user"
                refuse(connection, .permission("only \(group) may use this socket; \(peer) is refused"))
                Log.limited(.warning, key: "control-peer", "control: refused \(peer): not in the socket's group")
                continue
            }
            guard clients.count < limits.clients else {
                refuse(connection, .busy("\(limits.clients) clients are connected; try again later"))
                Log.limited(.warning, key: "control-busy", "control: refused \(peer): \(limits.clients) clients already")
                continue
            }
            let client = Client(id: nextClient, connection: connection, session: ControlSession(limits: limits, openedAt: now()),
                                peer: peer)
            nextClient += 1
            client.registration = try? loop.watch(connection.descriptor.rawValue) { [unowned self, unowned client] events in
                handle(client, events)
            }
            guard client.registration != nil else { continue }
            clients[client.id] = client
            armIdle()
        }
    }

    /// One best-effort line to a peer that is not let in, then the connection is closed.
    private func refuse(_ connection: UnixConnection, _ error: ControlError) {
        _ = try? connection.send(Array(ControlReply.error(error).line.utf8)[...])
    }

    private func handle(_ client: Client, _ events: Epoll.Events) {
        if events.contains(.writable) { flush(client) }
        guard clients[client.id] != nil, !client.closing,
              events.contains(.readable) || events.contains(.hangup) || events.contains(.error) else { return }
        // A request that began here has a deadline of its own (its whole time, issue 54 item 12),
        // sooner than the silence the timer was set for: the timer follows (a trickle was dropped
        // only at the 60 s of silence counted from the connect).
        defer { armIdle() }
        // A bounded read per wakeup: a client that streams cannot keep the loop from the display.
        for _ in 0..<16 {
            let received: (bytes: [UInt8], descriptors: [FileDescriptor])
            do { received = try client.connection.receive(upTo: 4096) } catch {
                if error == .wouldBlock { break }
                drop(client, reason: "read failed: \(error)")
                return
            }
            for fd in received.descriptors {
                if client.passed.count < 2 { client.passed.append(fd) } else { try? fd.close() }
            }
            if received.bytes.isEmpty && !received.descriptors.isEmpty { continue }
            let actions = client.session.received(received.bytes, at: now())
            for action in actions {
                switch action {
                case .request(let command):
                    let id = nextRequest
                    nextRequest += 1
                    requests[id] = client.id
                    dispatch(id, command)
                    if requests.removeValue(forKey: id) != nil {
                        queue(.error(.refused("no answer")), to: client)
                    }
                case .reply(let reply):
                    queue(reply, to: client)
                    if case .error(.busy) = reply, client.session.refusedForRate == 1 {
                        Log.limited(.notice, key: "control-rate", "control: \(client.peer) sends faster than \(Int(limits.ratePerSecond)) requests a second")
                    }
                case .closeConnection(let reason):
                    client.closing = true
                    if client.output.isEmpty || received.bytes.isEmpty { drop(client, reason: reason); return }
                }
                if clients[client.id] == nil { return }
            }
            if client.closing { flush(client); return }
            if received.bytes.isEmpty { return }
        }
    }

    // MARK: Answers

    /// The core's answer to request `id` (ignored when its client has gone).
    func answer(_ id: UInt64, _ reply: ControlReply) {
        guard let clientID = requests.removeValue(forKey: id), let client = clients[clientID] else { return }
        queue(reply, to: client)
    }

    /// The descriptor the `screenshot` request `id` passed (taken: the caller closes it).
    func takePassedDescriptor(for id: UInt64) -> FileDescriptor? {
        guard let clientID = requests[id], let client = clients[clientID], !client.passed.isEmpty else { return nil }
        return client.passed.removeFirst()
    }


    /// Whether a screenshot may start now (see `ScreenshotGate`): nil, and it counts as started,
    /// or the refusal to answer.
    func screenshotRefusal() -> ControlError? {
        screenshots.request(at: now(), inFlight: BackgroundWrite.inFlight)
    }

    /// Makes the bytes (`make`, on another thread) and writes them to the descriptor request `id`
    /// passed, and answers `done(byteCount)` when all are out; the client's further requests wait
    /// until then. Neither the encoding nor the write ever runs on the loop.
    func write(making make: @escaping @Sendable () throws(BackgroundWrite.Problem) -> [UInt8], to fd: FileDescriptor,
               for id: UInt64, done: @escaping (Int) -> String) {
        guard let clientID = requests.removeValue(forKey: id), let client = clients[clientID] else { return }
        guard (try? BackgroundWrite.kind(of: fd)) != .terminal else {
            queue(.error(.usage("screenshot: the descriptor is a terminal; redirect it to a file")), to: client)
            return
        }
        let write: BackgroundWrite
        do { write = try BackgroundWrite(to: fd, patience: .seconds(Int64(limits.screenshotSeconds)), making: make) } catch {
            queue(.error(.refused("screenshot: the descriptor: \(error)")), to: client)
            return
        }
        var job = Job(write: write, done: done)
        job.registration = try? loop.watch(write.done.rawValue) { [unowned self, unowned client] _ in finished(client) }
        // Past the thread's own patience: a regular file's write cannot be interrupted, so the
        // client hears the truth and the thread ends whenever the file system answers.
        job.deadline = try? loop.addTimer(after: .seconds(Int64(limits.screenshotSeconds) + 5)) { [unowned self, unowned client] in
            finishJob(client, .error(.refused("screenshot: not written within \(Int(limits.screenshotSeconds)) s "
                                              + "(is the file system hung?); given up")))
        }
        guard job.registration != nil, job.deadline != nil else {
            if let r = job.registration { loop.remove(r) }
            if let r = job.deadline { loop.remove(r) }
            queue(.error(.refused("screenshot: cannot wait for the writer")), to: client)
            return
        }
        client.job = job
        if let registration = client.registration { try? loop.modify(registration, events: []) }
    }

    private func finished(_ client: Client) {
        guard let job = client.job else { return }
        var count: UInt64 = 0
        _ = read(job.write.done.rawValue, &count, 8)
        switch job.write.outcome {
        case .written(let n)?: finishJob(client, .ok(job.done(n)))
        case .failed(let why)?: finishJob(client, .error(.refused("screenshot: \(why)")))
        case nil: return
        }
    }

    private func finishJob(_ client: Client, _ reply: ControlReply) {
        guard let job = client.job else { return }
        if let registration = job.registration { loop.remove(registration) }
        if let deadline = job.deadline { loop.remove(deadline) }
        client.job = nil
        queue(reply, to: client)
        if let registration = client.registration, clients[client.id] != nil {
            try? loop.modify(registration, events: client.output.isEmpty ? .readable : [.readable, .writable])
        }
    }

    private func queue(_ reply: ControlReply, to client: Client) {
        client.output.append(contentsOf: Array(reply.line.utf8))
        if client.output.count > limits.unreadReplyBytes {
            drop(client, reason: "left more than \(limits.unreadReplyBytes) bytes of answers unread")
            return
        }
        flush(client)
    }

    private func flush(_ client: Client) {
        while !client.output.isEmpty {
            let n: Int
            do { n = try client.connection.send(client.output[...]) } catch {
                drop(client, reason: nil)
                return
            }
            if n == 0 { break }
            client.output.removeFirst(n)
        }
        if client.output.isEmpty && client.closing {
            drop(client, reason: nil)
            return
        }
        if let registration = client.registration, client.job == nil {
            try? loop.modify(registration, events: client.output.isEmpty ? .readable : [.readable, .writable])
        }
    }

    private func drop(_ client: Client, reason: String?) {
        if let registration = client.registration { loop.remove(registration) }
        if let job = client.job {
            if let registration = job.registration { loop.remove(registration) }
            if let deadline = job.deadline { loop.remove(deadline) }
        }
        client.job = nil
        client.registration = nil
        clients.removeValue(forKey: client.id)
        requests = requests.filter { $0.value != client.id }
        if let reason, reason != "closed by the client" { Log.notice("control: \(client.peer): \(reason)") }
    }

    // MARK: Silence

    private func armIdle() {
        guard let idleTimer else { return }
        guard let first = clients.values.map({ $0.session.idleDeadline }).min() else {
            try? loop.disarm(idleTimer)
            return
        }
        let delay = max(0.01, first - now())
        try? loop.rearm(idleTimer, after: .nanoseconds(Int64(delay * 1e9)))
    }

    private func closeIdle() {
        let t = now()
        for client in Array(clients.values) {
            if case .closeConnection(let reason)? = client.session.idle(at: t) { drop(client, reason: reason) }
        }
        armIdle()
    }
}
